// The model's Markdown as Discord Markdown (DESIGN §9.1): **bold** *italic* ~~strike~~ `code`,
// fenced code blocks with their language, "#"/"##"/"###" headings (deeper ones bold), "> " quotes,
// lists, tables as aligned code blocks, [text](address) links. Characters Discord would read as
// formatting in the model's plain text are escaped with a backslash, so they show as written.
// Parts of at most 2,000 characters (a message's limit); a code block is never split open: a long
// one is closed and opened again with its language. Pure, table-tested (test/channel-render.test.ts).
import {
  alignTable,
  CODE_LANG,
  decodeEntities,
  parseMarkdown,
  SCRIPT_LINK,
  type Token,
  type Tokens,
} from '../markdown/parse.js';
import { listText, wrapMark } from '../markdown/plain-text.js';
import { type Block, packBlocks } from '../markdown/split.js';

export const DISCORD_MAX_MESSAGE = 2000;
/** What an answer with nothing to show is sent as: Discord refuses an empty message. */
const EMPTY_ANSWER = '…';
const SAFE_LINK = /^https?:\/\//i;

/** The answer as Discord messages, in order; never none. */
export function renderDiscord(markdown: string, max = DISCORD_MAX_MESSAGE): string[] {
  const parts = packBlocks(discordBlocks(markdown), max);
  if (parts.length) return parts;
  return packBlocks([{ kind: 'text', text: escapeDiscord(markdown.trim()) || EMPTY_ANSWER }], max);
}

/** The answer's blocks as Discord shows them, before they are packed into parts. */
export function discordBlocks(markdown: string): Block[] {
  return blocks(parseMarkdown(markdown), '');
}

/** The model's plain text as Discord shows it: its formatting characters escaped. */
export function escapeDiscord(s: string): string {
  return s.replace(/([\\*_~`|<>#[\]()-])/g, '\\$1');
}

function blocks(tokens: Token[], quote: string): Block[] {
  const out: Block[] = [];
  for (const t of tokens) out.push(...block(t, quote));
  return out;
}

const text = (s: string): Block[] => (s.trim() ? [{ kind: 'text', text: s }] : []);
const quoted = (s: string, quote: string) => (quote ? s.replace(/^/gm, quote) : s);

/**
 * Code with its own ``` would close (or open) a fence early: a zero-width space between backticks
 * keeps every run literal, as it shows.
 */
export const unfenced = (code: string) => code.replace(/`(?=`)/g, '`\u200b');

function codeFence(body: string, lang?: string): Block {
  const l = lang?.trim() && CODE_LANG.test(lang.trim()) ? lang.trim() : '';
  return { kind: 'code', open: `\`\`\`${l}\n`, body: unfenced(body), close: '\n```' };
}

function block(t: Token, quote: string): Block[] {
  switch (t.type) {
    case 'space':
    case 'def':
      return [];
    case 'heading': {
      const h = t as Tokens.Heading;
      const inner = inline(h.tokens).trim();
      if (!inner) return [];
      return text(quoted(h.depth <= 3 ? `${'#'.repeat(h.depth)} ${inner}` : `**${inner}**`, quote));
    }
    case 'paragraph':
      return text(quoted(inline((t as Tokens.Paragraph).tokens).trim(), quote));
    case 'text': {
      const tt = t as Tokens.Text;
      return text(quoted(tt.tokens ? inline(tt.tokens) : escapeDiscord(decodeEntities(tt.text)), quote));
    }
    case 'code': {
      const c = t as Tokens.Code;
      const body = c.text.replace(/\n+$/, '');
      return body.trim() ? [codeFence(body, c.lang)] : [];
    }
    case 'blockquote':
      // Discord does not nest quotes: an inner quote is quoted once.
      return blocks((t as Tokens.Blockquote).tokens, '> ');
    case 'list':
      return text(quoted(listText(t as Tokens.List, 0, '  ', block), quote));
    case 'table':
      return [codeFence(alignTable(t as Tokens.Table, (c) => plain(c.tokens).replace(/\s+/g, ' ').trim()))];
    case 'hr':
      return text('——————');
    case 'html':
      return text(quoted(escapeDiscord((t as Tokens.HTML).text.trimEnd()), quote));
    default:
      return 'text' in t && typeof t.text === 'string' ? text(escapeDiscord(t.text)) : [];
  }
}

function inline(tokens: Token[] | undefined): string {
  if (!tokens) return '';
  let out = '';
  for (const t of tokens) out += inlineOne(t);
  return out;
}

function inlineOne(t: Token): string {
  switch (t.type) {
    case 'text': {
      const tt = t as Tokens.Text;
      return tt.tokens ? inline(tt.tokens) : escapeDiscord(decodeEntities(tt.text));
    }
    case 'escape':
      return escapeDiscord((t as Tokens.Escape).text);
    case 'strong':
      return wrapMark('**', inline((t as Tokens.Strong).tokens));
    case 'em':
      return wrapMark('*', inline((t as Tokens.Em).tokens));
    case 'del':
      return wrapMark('~~', inline((t as Tokens.Del).tokens));
    case 'codespan': {
      const code = (t as Tokens.Codespan).text;
      if (!code) return '';
      // A code span holding a backtick needs a longer fence (and a space before an edge backtick);
      // one holding a fence would open a code block: a zero-width space keeps it literal.
      return code.includes('`') ? `\`\` ${unfenced(code)} \`\`` : `\`${code}\``;
    }
    case 'br':
      return '\n';
    case 'link':
    case 'image': {
      const l = t as Tokens.Link | Tokens.Image;
      const href = decodeEntities(l.href);
      const shown = l.type === 'link' ? inline((l as Tokens.Link).tokens) : escapeDiscord(decodeEntities(l.text));
      if (SCRIPT_LINK.test(href)) return shown;
      if (!shown.trim() || plain([l]) === href) return SAFE_LINK.test(href) ? href : escapeDiscord(href);
      // Masked links to http(s) only; another address is shown after its text.
      return SAFE_LINK.test(href)
        ? `[${shown}](${href.replace(/[()\s]/g, encodeURIComponent)})`
        : `${shown} (${escapeDiscord(href)})`;
    }
    case 'html':
      return escapeDiscord((t as Tokens.HTML).text);
    default:
      return 'text' in t && typeof t.text === 'string' ? escapeDiscord(t.text) : '';
  }
}

/** Inline tokens as plain text (table cells go in a code block, where nothing is formatted). */
function plain(tokens: Token[] | undefined): string {
  if (!tokens) return '';
  let out = '';
  for (const t of tokens) {
    if (t.type === 'br') out += ' ';
    else if (t.type === 'link' || t.type === 'image') {
      const l = t as Tokens.Link | Tokens.Image;
      const href = decodeEntities(l.href);
      const shown = l.type === 'link' ? plain((l as Tokens.Link).tokens) : decodeEntities(l.text);
      out += SCRIPT_LINK.test(href) ? shown : !shown || shown === href ? href : `${shown} (${href})`;
    } else if ('tokens' in t && t.tokens) out += plain(t.tokens);
    else if ('text' in t && typeof t.text === 'string') out += decodeEntities(t.text);
  }
  return out;
}
