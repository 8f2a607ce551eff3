// Pieces every renderer to a plain-text markup shares (WhatsApp, Discord): lists as text with
// their marks, and a marker put around text inside its outer blanks ("* bold*" is not bold there).
import type { Token, Tokens } from './parse.js';
import type { Block } from './split.js';

/** A list as lines of text: `indent` per nesting level, `block` renders each item's own blocks. */
export function listText(
  l: Tokens.List,
  depth: number,
  indent: string,
  block: (t: Token, quote: string) => Block[],
): string {
  const pad = indent.repeat(depth);
  const start = typeof l.start === 'number' ? l.start : 1;
  const lines: string[] = [];
  l.items.forEach((item, i) => {
    const box = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
    const mark = l.ordered ? `${start + i}.` : '-';
    const parts: string[] = [];
    const nested: string[] = [];
    for (const t of item.tokens) {
      if (t.type === 'checkbox') continue;
      if (t.type === 'list') nested.push(listText(t as Tokens.List, depth + 1, indent, block));
      else for (const b of block(t, '')) parts.push(b.kind === 'text' ? b.text : `${b.open}${b.body}${b.close}`);
    }
    lines.push(`${pad}${mark} ${box}${parts.join(`\n${pad}  `)}`.trimEnd());
    lines.push(...nested.filter((n) => n.trim()));
  });
  return lines.join('\n');
}

/** `mark` around `inner`, inside its outer blanks; blanks alone stay as they are. */
export function wrapMark(mark: string, inner: string): string {
  const m = /^(\s*)(.*?)(\s*)$/s.exec(inner)!;
  return m[2] ? `${m[1]}${mark}${m[2]}${mark}${m[3]}` : inner;
}
