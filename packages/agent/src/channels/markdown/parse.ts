// The channel-neutral form of the model's Markdown: marked's token tree (GitHub-flavoured), parsed
// once. Each channel renders it its own way, under its own folder (telegram/render/markdown-html.ts,
// whatsapp/render.ts, discord/render.ts), naming only its own marks; what every renderer needs
// alike lives in this folder (the inline walk in inline.ts, lists in list.ts, the block walk of the
// plain-text markups in plain-text.ts, parts in split.ts). Pure.
import { decodeHTMLStrict } from 'entities';
import { Lexer, type Token, type Tokens } from 'marked';

export type { Token, Tokens };

/** The model's answer as block tokens. */
export function parseMarkdown(markdown: string): Token[] {
  return new Lexer({ gfm: true }).lex(markdown);
}

/** The model's HTML entities (&copy; &nbsp;) as the characters they stand for, decoded once. */
export function decodeEntities(text: string): string {
  return text.includes('&') ? decodeHTMLStrict(text) : text;
}

/** Addresses not worth showing: a script or inline data, never something a reader can follow. */
export const SCRIPT_LINK = /^\s*(javascript|vbscript|data|file):/i;

/** A code block's language when it is one a renderer may repeat (a word, not an injection). */
export const CODE_LANG = /^[A-Za-z0-9_+#.-]{1,32}$/;

/**
 * Rows of a table's cells as plain text (`plain` renders a cell's tokens; its blanks fold to one
 * space), padded into aligned columns (for a monospace block).
 */
export function alignTable(t: Tokens.Table, plain: (tokens: Token[]) => string): string {
  const cell = (c: Tokens.TableCell) => plain(c.tokens).replace(/\s+/g, ' ').trim();
  const rows = [t.header.map(cell), ...t.rows.map((r) => r.map(cell))];
  const cols = Math.max(...rows.map((r) => r.length));
  const width = Array.from({ length: cols }, (_, i) => Math.max(1, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const pad = (s: string, i: number) => {
    const gap = ' '.repeat(width[i]! - [...s].length);
    if (t.align[i] === 'right') return gap + s;
    if (t.align[i] !== 'center') return s + gap;
    const left = Math.floor(gap.length / 2);
    return ' '.repeat(left) + s + ' '.repeat(gap.length - left);
  };
  const line = (r: string[]) =>
    Array.from({ length: cols }, (_, i) => pad(r[i] ?? '', i))
      .join(' │ ')
      .trimEnd();
  const rule = width.map((w) => '─'.repeat(w)).join('─┼─');
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}
