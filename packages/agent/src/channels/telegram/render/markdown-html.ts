// The model's Markdown as Telegram HTML (parse_mode "HTML"), from the channel-neutral token tree
// (channels/markdown/parse.ts, marked's lexer): the text is parsed once into tokens and each token becomes only what Telegram accepts (b i u s code pre a
// blockquote tg-spoiler), every piece of text escaped. Headings are bold lines, lists are lines
// with bullets or numbers, tables are aligned <pre> blocks. Links to http, https and tg are <a>
// tags; any other address (mailto:, tel:, a table cell's links, where <pre> allows no tag) is
// shown after its text, "text (address)", so no address is lost; script schemes are dropped.
// The model's HTML entities (&copy; &nbsp;) are decoded once, then escaped again for Telegram.
// Pure: no I/O, table-tested (test/telegram-render.test.ts, telegram-render-lossless.test.ts).
import { decodeHTMLStrict } from 'entities';
import { parseMarkdown, type Token, type Tokens } from '../../markdown/parse.js';
import { escapeAttr, escapeHtml } from './escape.js';

const SAFE_LINK = /^(https?:\/\/|tg:\/\/)/i;
/** Addresses not worth showing: a script or inline data, never something a reader can follow. */
const SCRIPT_LINK = /^\s*(javascript|vbscript|data|file):/i;
/** Schemes Telegram finds again in plain text (an e-mail address, a phone number) without them. */
const TEXT_SCHEME = /^(mailto|tel):/i;
const LANG = /^[A-Za-z0-9_+#.-]{1,32}$/;

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
    case 'text': {
      const tt = t as Tokens.Text;
      return tt.tokens ? inline(tt.tokens) : escapeHtml(decode(tt.text));
    }
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
      return list(t as Tokens.List, where, 0);
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
  const cls = lang && LANG.test(lang.trim()) ? ` class="language-${escapeAttr(lang.trim())}"` : '';
  return `<pre><code${cls}>${body}</code></pre>`;
}

function list(l: Tokens.List, where: Where, depth: number): string {
  const indent = '   '.repeat(depth);
  const start = typeof l.start === 'number' ? l.start : 1;
  const lines: string[] = [];
  l.items.forEach((item, i) => {
    const box = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
    const mark = l.ordered ? `${start + i}.` : '•';
    const parts: string[] = [];
    const nested: string[] = [];
    for (const t of item.tokens) {
      if (t.type === 'checkbox') continue;
      if (t.type === 'list') nested.push(list(t as Tokens.List, where, depth + 1));
      else {
        const b = block(t, where);
        if (b?.trim()) parts.push(b);
      }
    }
    lines.push(`${indent}${mark} ${box}${parts.join('\n' + indent + '  ')}`.trimEnd());
    lines.push(...nested.filter((n) => n.trim()));
  });
  return lines.join('\n');
}

function table(t: Tokens.Table): string {
  const cell = (c: Tokens.TableCell) => plain(c.tokens).replace(/\s+/g, ' ').trim();
  const rows = [t.header.map(cell), ...t.rows.map((r) => r.map(cell))];
  const cols = Math.max(...rows.map((r) => r.length));
  const width = Array.from({ length: cols }, (_, i) => Math.max(1, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const pad = (s: string, i: number) => {
    const gap = ' '.repeat(width[i]! - [...s].length);
    return t.align[i] === 'right' ? gap + s : t.align[i] === 'center' ? center(s, gap) : s + gap;
  };
  const line = (r: string[]) =>
    Array.from({ length: cols }, (_, i) => pad(r[i] ?? '', i))
      .join(' │ ')
      .trimEnd();
  const rule = width.map((w) => '─'.repeat(w)).join('─┼─');
  const text = [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
  return `<pre>${escapeHtml(text)}</pre>`;
}

function center(s: string, gap: string) {
  const left = Math.floor(gap.length / 2);
  return ' '.repeat(left) + s + ' '.repeat(gap.length - left);
}

/** Inline tokens as HTML. */
function inline(tokens: Token[] | undefined): string {
  if (!tokens) return '';
  let out = '';
  for (const t of tokens) out += inlineOne(t);
  return out;
}

function wrap(tag: string, inner: string) {
  return inner ? `<${tag}>${inner}</${tag}>` : '';
}

function inlineOne(t: Token): string {
  switch (t.type) {
    case 'text': {
      const tt = t as Tokens.Text;
      return tt.tokens ? inline(tt.tokens) : escapeHtml(decode(tt.text));
    }
    case 'escape':
      return escapeHtml((t as Tokens.Escape).text);
    case 'strong':
      return wrap('b', inline((t as Tokens.Strong).tokens));
    case 'em':
      return wrap('i', inline((t as Tokens.Em).tokens));
    case 'del':
      return wrap('s', inline((t as Tokens.Del).tokens));
    case 'codespan': {
      const text = (t as Tokens.Codespan).text;
      return text ? `<code>${escapeHtml(text)}</code>` : '';
    }
    case 'br':
      return '\n';
    case 'link': {
      const l = t as Tokens.Link;
      const href = decode(l.href);
      const inner = inline(l.tokens) || escapeHtml(href);
      if (SAFE_LINK.test(href)) return `<a href="${escapeAttr(href)}">${inner}</a>`;
      return withAddress(inner, plain(l.tokens) || href, href, escapeHtml);
    }
    case 'image': {
      const img = t as Tokens.Image;
      const href = decode(img.href);
      const alt = decode(img.text) || href;
      if (SAFE_LINK.test(href)) return `<a href="${escapeAttr(href)}">${escapeHtml(alt)}</a>`;
      return withAddress(escapeHtml(alt), alt, href, escapeHtml);
    }
    case 'html':
      return escapeHtml((t as Tokens.HTML).text);
    default:
      return 'text' in t && typeof t.text === 'string' ? escapeHtml(t.text) : '';
  }
}

/**
 * Inline tokens as the text a reader sees (table cells go inside <pre>, where tags are not allowed):
 * a link's address follows its text, as `inline` does for the schemes Telegram cannot link.
 */
function plain(tokens: Token[] | undefined): string {
  if (!tokens) return '';
  let out = '';
  for (const t of tokens) {
    if (t.type === 'br') out += ' ';
    else if (t.type === 'link' || t.type === 'image') {
      const l = t as Tokens.Link | Tokens.Image;
      const href = decode(l.href);
      const text = (t.type === 'link' ? plain((l as Tokens.Link).tokens) : decode(l.text)) || href;
      out += withAddress(text, text, href, (s) => s);
    } else if ('tokens' in t && Array.isArray(t.tokens)) out += plain(t.tokens);
    else if (t.type === 'codespan' || t.type === 'escape') out += (t as Tokens.Codespan).text;
    else if ('text' in t && typeof t.text === 'string') out += decode(t.text);
  }
  return out;
}

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

/**
 * The model's HTML entities (&copy; &nbsp; &#8212;) as the characters they name, decoded once:
 * marked has decoded numeric references already and left "&#38;" as "&amp;", so one strict pass
 * here turns "&amp;copy;" into the literal "&copy;", never "©". Strict: "?a=1&not=2" stays as is.
 */
function decode(text: string): string {
  return text.includes('&') ? decodeHTMLStrict(text) : text;
}
