// What every renderer to a plain-text markup shares (WhatsApp, Discord): the walk from marked's
// block tokens to the blocks split.ts packs into parts, each channel naming only its own marks
// (headings, code fences, how its text is escaped), and a marker put around text inside its outer
// blanks ("* bold*" is not bold there).
import type { InlineRender } from './inline.js';
import { listText } from './list.js';
import { alignTable, type Token, type Tokens } from './parse.js';
import type { Block } from './split.js';

/** What a plain-text channel writes for each block token. */
export interface TextBlockStyle {
  /** Inline tokens in the channel's markup, and as the bare text a table cell shows. */
  inline: InlineRender;
  plain: InlineRender;
  /** The model's own text as the channel shows it literally. */
  escape(text: string): string;
  /** A heading's line from its trimmed text, or null for no line at all. */
  heading(depth: number, inner: string): string | null;
  /** A code block (its trailing line breaks dropped, never blank) as a fenced block. */
  code(body: string, lang: string | undefined): Block;
  /** A table's aligned rows as a monospace block. */
  table(body: string): Block;
  /** A nested list's indent, per level. */
  listIndent: string;
}

/** Block tokens as the channel's blocks, in reading order; `quote` starts each line of a quote. */
export function textBlocks(tokens: Token[], style: TextBlockStyle, quote = ''): Block[] {
  const out: Block[] = [];
  for (const t of tokens) out.push(...block(t, style, quote));
  return out;
}

const text = (s: string): Block[] => (s.trim() ? [{ kind: 'text', text: s }] : []);
const quoted = (s: string, quote: string) => (quote ? s.replace(/^/gm, quote) : s);
const whole = (b: Block) => (b.kind === 'text' ? b.text : `${b.open}${b.body}${b.close}`);

function block(t: Token, style: TextBlockStyle, quote: string): Block[] {
  const { inline } = style;
  switch (t.type) {
    case 'space':
    case 'def':
      return [];
    case 'heading': {
      const h = t as Tokens.Heading;
      const line = style.heading(h.depth, inline(h.tokens).trim());
      return line === null ? [] : text(quoted(line, quote));
    }
    case 'paragraph':
      return text(quoted(inline((t as Tokens.Paragraph).tokens).trim(), quote));
    case 'text':
      return text(quoted(inline([t]), quote));
    case 'code': {
      const c = t as Tokens.Code;
      const body = c.text.replace(/\n+$/, '');
      return body.trim() ? [style.code(body, c.lang)] : [];
    }
    case 'blockquote':
      // Neither channel nests quotes: an inner quote is quoted once.
      return textBlocks((t as Tokens.Blockquote).tokens, style, '> ');
    case 'list': {
      const item = (i: Token) => block(i, style, '').map(whole);
      return text(quoted(listText(t as Tokens.List, 0, style.listIndent, '-', item), quote));
    }
    case 'table':
      return [style.table(alignTable(t as Tokens.Table, style.plain))];
    case 'hr':
      return text('——————');
    case 'html':
      return text(quoted(style.escape((t as Tokens.HTML).text.trimEnd()), quote));
    default:
      return 'text' in t && typeof t.text === 'string' ? text(style.escape(t.text)) : [];
  }
}

/** `mark` around `inner`, inside its outer blanks; blanks alone stay as they are. */
export function wrapMark(mark: string, inner: string): string {
  const m = /^(\s*)(.*?)(\s*)$/s.exec(inner)!;
  return m[2] ? `${m[1]}${mark}${m[2]}${mark}${m[3]}` : inner;
}
