// The model's Markdown as WhatsApp text (DESIGN §9.1): *bold* _italic_ ~strike~ `code`, ``` blocks
// in monospace, "> " quotes, "- " and "1. " lists, headings as bold lines, tables as aligned
// monospace blocks; a link shows its address after its text (WhatsApp links bare addresses
// itself), so no address is lost. Parts of at most 4,096 characters (the Cloud API's limit for a
// text body), never cutting a character or leaving a monospace block open. Pure, table-tested
// (test/channel-render.test.ts).
import { alignTable, decodeEntities, parseMarkdown, SCRIPT_LINK, type Token, type Tokens } from '../markdown/parse.js';
import { listText, wrapMark } from '../markdown/plain-text.js';
import { type Block, packBlocks } from '../markdown/split.js';

export const WHATSAPP_MAX_MESSAGE = 4096;
/** What an answer with nothing to show is sent as: the Cloud API refuses an empty body. */
const EMPTY_ANSWER = '…';

/** The answer as WhatsApp messages, in order; never none. */
export function renderWhatsApp(markdown: string, max = WHATSAPP_MAX_MESSAGE): string[] {
  const parts = packBlocks(whatsAppBlocks(markdown), max);
  if (parts.length) return parts;
  return packBlocks([{ kind: 'text', text: markdown.trim() || EMPTY_ANSWER }], max);
}

/** The answer's blocks as WhatsApp shows them, before they are packed into parts. */
export function whatsAppBlocks(markdown: string): Block[] {
  return blocks(parseMarkdown(markdown), '');
}

function blocks(tokens: Token[], quote: string): Block[] {
  const out: Block[] = [];
  for (const t of tokens) out.push(...block(t, quote));
  return out;
}

const text = (s: string): Block[] => (s.trim() ? [{ kind: 'text', text: s }] : []);
const quoted = (s: string, quote: string) => (quote ? s.replace(/^/gm, quote) : s);

function block(t: Token, quote: string): Block[] {
  switch (t.type) {
    case 'space':
    case 'def':
      return [];
    case 'heading': {
      const inner = inline((t as Tokens.Heading).tokens).trim();
      return text(quoted(wrapMark('*', inner), quote));
    }
    case 'paragraph':
      return text(quoted(inline((t as Tokens.Paragraph).tokens).trim(), quote));
    case 'text': {
      const tt = t as Tokens.Text;
      return text(quoted(tt.tokens ? inline(tt.tokens) : decodeEntities(tt.text), quote));
    }
    case 'code': {
      const c = t as Tokens.Code;
      const body = c.text.replace(/\n+$/, '');
      // WhatsApp has no languages: the fence alone marks the monospace block.
      // A run of backticks in the code would end the block early: a zero-width space breaks it.
      return body.trim()
        ? [{ kind: 'code', open: '```\n', body: body.replace(/`(?=`)/g, '`\u200b'), close: '\n```' }]
        : [];
    }
    case 'blockquote': {
      // WhatsApp does not nest quotes: an inner quote is quoted once.
      return blocks((t as Tokens.Blockquote).tokens, '> ');
    }
    case 'list':
      return text(quoted(listText(t as Tokens.List, 0, '   ', block), quote));
    case 'table': {
      const body = alignTable(t as Tokens.Table, (c) => plain(c.tokens).replace(/\s+/g, ' ').trim());
      return [{ kind: 'code', open: '```\n', body, close: '\n```' }];
    }
    case 'hr':
      return text('——————');
    case 'html':
      return text(quoted((t as Tokens.HTML).text.trimEnd(), quote));
    default:
      return 'text' in t && typeof t.text === 'string' ? text(t.text) : [];
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
      return tt.tokens ? inline(tt.tokens) : decodeEntities(tt.text);
    }
    case 'escape':
      return (t as Tokens.Escape).text;
    case 'strong':
      return wrapMark('*', inline((t as Tokens.Strong).tokens));
    case 'em':
      return wrapMark('_', inline((t as Tokens.Em).tokens));
    case 'del':
      return wrapMark('~', inline((t as Tokens.Del).tokens));
    case 'codespan': {
      const code = (t as Tokens.Codespan).text;
      return code ? `\`${code}\`` : '';
    }
    case 'br':
      return '\n';
    case 'link':
    case 'image':
      return linkText(t as Tokens.Link | Tokens.Image, (l) =>
        l.type === 'link' ? inline((l as Tokens.Link).tokens) : decodeEntities(l.text),
      );
    case 'html':
      return (t as Tokens.HTML).text;
    default:
      return 'text' in t && typeof t.text === 'string' ? t.text : '';
  }
}

/** "text (address)", the address alone when it is the text, the text alone for a script link. */
function linkText(l: Tokens.Link | Tokens.Image, label: (l: Tokens.Link | Tokens.Image) => string): string {
  const href = decodeEntities(l.href);
  const shown = label(l);
  if (SCRIPT_LINK.test(href)) return shown;
  if (!shown.trim() || shown.trim() === href || shown.trim() === href.replace(/^mailto:/i, '')) return href;
  return `${shown} (${href})`;
}

/** Inline tokens as plain text (table cells go in a monospace block, where nothing is formatted). */
function plain(tokens: Token[] | undefined): string {
  if (!tokens) return '';
  let out = '';
  for (const t of tokens) {
    if (t.type === 'br') out += ' ';
    else if (t.type === 'link' || t.type === 'image')
      out += linkText(t as Tokens.Link | Tokens.Image, (l) =>
        l.type === 'link' ? plain((l as Tokens.Link).tokens) : decodeEntities(l.text),
      );
    else if ('tokens' in t && t.tokens) out += plain(t.tokens);
    else if (t.type === 'text' || t.type === 'codespan' || t.type === 'escape') out += decodeEntities(t.text);
    else if ('text' in t && typeof t.text === 'string') out += t.text;
  }
  return out;
}
