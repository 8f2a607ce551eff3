// The model's Markdown as Telegram HTML (parse_mode "HTML"), from the channel-neutral token tree
// (channels/markdown/parse.ts, marked's lexer): the text is parsed once into tokens and each token
// becomes only what Telegram accepts (b i u s code pre a blockquote tg-spoiler), every piece of
// text escaped; the walk over inline tokens and lists is the one every channel shares
// (channels/markdown/inline.ts, list.ts). Headings are bold lines, lists are lines
// with bullets or numbers, tables are aligned <pre> blocks. Links to http, https and tg are <a>
// tags; any other address (mailto:, tel:, a table cell's links, where <pre> allows no tag) is
// shown after its text, "text (address)", so no address is lost; script schemes are dropped.
// The model's HTML entities (&copy; &nbsp;) are decoded once, then escaped again for Telegram.
// Pure: no I/O, table-tested (test/telegram-render.test.ts, telegram-render-lossless.test.ts).
import { inlineRenderer, plainRenderer } from '../../markdown/inline.js';
import { listText } from '../../markdown/list.js';
import {
  alignTable,
  CODE_LANG,
  decodeEntities,
  parseMarkdown,
  SCRIPT_LINK,
  type Token,
  type Tokens,
} from '../../markdown/parse.js';
import { escapeAttr, escapeHtml } from './escape.js';

const SAFE_LINK = /^(https?:\/\/|tg:\/\/)/i;
/** Schemes Telegram finds again in plain text (an e-mail address, a phone number) without them. */
const TEXT_SCHEME = /^(mailto|tel):/i;

/** Block-level pieces of HTML, each with its tags closed, in reading order. */
export function markdownToBlocks(markdown: string): string[] {
  const tokens = parseMarkdown(markdown);
  return blocks(tokens, { inQuote: false }).filter((b) => b.trim() !== '');
}

/** The whole answer as one HTML string (blocks separated by a blank line). */
export function markdownToHtml(markdown: string): string {
  return markdownToBlocks(markdown).join('\n\n');
}

interface Where {
  /** Telegram does not nest blockquotes: an inner quote is rendered as its content. */
  inQuote: boolean;
}

function blocks(tokens: Token[], where: Where): string[] {
  const out: string[] = [];
  for (const t of tokens) {
    const b = block(t, where);
    if (b !== null) out.push(b);
  }
  return out;
}

function block(t: Token, where: Where): string | null {
  switch (t.type) {
    case 'space':
    case 'def':
      return null;
    case 'heading': {
      const inner = inline((t as Tokens.Heading).tokens);
      return inner.trim() ? `<b>${inner}</b>` : null;
    }
    case 'paragraph':
      return inline((t as Tokens.Paragraph).tokens).trim();
    case 'text':
      return inline([t]);
    case 'code': {
      const c = t as Tokens.Code;
      return codeBlock(c.text, c.lang);
    }
    case 'blockquote': {
      const inner = blocks((t as Tokens.Blockquote).tokens, { inQuote: true }).join('\n');
      if (!inner.trim()) return null;
      return where.inQuote ? inner : `<blockquote>${inner}</blockquote>`;
    }
    case 'list':
      return list(t as Tokens.List, where);
    case 'table':
      return table(t as Tokens.Table);
    case 'hr':
      return '——————';
    case 'html':
      return escapeHtml((t as Tokens.HTML).text.trimEnd());
    default:
      return 'text' in t && typeof t.text === 'string' ? escapeHtml(t.text) : null;
  }
}

export function codeBlock(text: string, lang?: string): string {
  if (!text.trim()) return '';
  const body = escapeHtml(text.replace(/\n+$/, ''));
  const cls = lang && CODE_LANG.test(lang.trim()) ? ` class="language-${escapeAttr(lang.trim())}"` : '';
  return `<pre><code${cls}>${body}</code></pre>`;
}

function list(l: Tokens.List, where: Where): string {
  return listText(l, 0, '   ', '•', (t) => {
    const b = block(t, where);
    return b?.trim() ? [b] : [];
  });
}

function table(t: Tokens.Table): string {
  return `<pre>${escapeHtml(alignTable(t, plain))}</pre>`;
}

const wrap = (tag: string) => (inner: string) => (inner ? `<${tag}>${inner}</${tag}>` : '');

/** Inline tokens as HTML. */
const inline = inlineRenderer({
  escape: escapeHtml,
  strong: wrap('b'),
  em: wrap('i'),
  del: wrap('s'),
  codespan: (code) => `<code>${escapeHtml(code)}</code>`,
  link: (l, inline) => {
    const href = decodeEntities(l.href);
    if (l.type === 'link') {
      const inner = inline(l.tokens) || escapeHtml(href);
      if (SAFE_LINK.test(href)) return `<a href="${escapeAttr(href)}">${inner}</a>`;
      return withAddress(inner, plain(l.tokens) || href, href, escapeHtml);
    }
    const alt = decodeEntities(l.text) || href;
    if (SAFE_LINK.test(href)) return `<a href="${escapeAttr(href)}">${escapeHtml(alt)}</a>`;
    return withAddress(escapeHtml(alt), alt, href, escapeHtml);
  },
});

/**
 * Inline tokens as the text a reader sees (table cells go inside <pre>, where tags are not allowed):
 * a link's address follows its text, as `inline` does for the schemes Telegram cannot link.
 */
const plain = plainRenderer(
  (l, plain) => {
    const href = decodeEntities(l.href);
    const text = (l.type === 'link' ? plain(l.tokens) : decodeEntities(l.text)) || href;
    return withAddress(text, text, href, (s) => s);
  },
  (t, text) => (t.type === 'codespan' || t.type === 'escape' ? text : decodeEntities(text)),
);

/**
 * A link Telegram cannot carry as a tag, as its text followed by its address, "write (a@b.com)":
 * `shown` is the text as output, `seen` the same text as a reader sees it. No address is added
 * when the text already is it (a bare e-mail address, autolinked), nor for a script's address.
 */
function withAddress(shown: string, seen: string, href: string, esc: (s: string) => string): string {
  const address = href.replace(TEXT_SCHEME, '').trim();
  if (!address || SCRIPT_LINK.test(href) || seen.trim() === address || seen.trim() === href) return shown;
  return shown ? `${shown} (${esc(address)})` : esc(address);
}
