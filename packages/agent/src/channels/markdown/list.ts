// A list as lines of text with their marks, the way every channel writes one (none of them has
// list markup): "1." or the channel's bullet, a box for a task, nested lists indented. Pure.
import type { Token, Tokens } from './parse.js';

/**
 * `l` as lines: `indent` per nesting level, `bullet` before an unordered item, and `item` rendering
 * each of an item's own block tokens as the pieces of text it shows (none for a blank one).
 */
export function listText(
  l: Tokens.List,
  depth: number,
  indent: string,
  bullet: string,
  item: (t: Token) => string[],
): string {
  const pad = indent.repeat(depth);
  const start = typeof l.start === 'number' ? l.start : 1;
  const lines: string[] = [];
  l.items.forEach((it, i) => {
    const box = it.task ? (it.checked ? '☑ ' : '☐ ') : '';
    const mark = l.ordered ? `${start + i}.` : bullet;
    const parts: string[] = [];
    const nested: string[] = [];
    for (const t of it.tokens) {
      if (t.type === 'checkbox') continue;
      if (t.type === 'list') nested.push(listText(t as Tokens.List, depth + 1, indent, bullet, item));
      else parts.push(...item(t));
    }
    lines.push(`${pad}${mark} ${box}${parts.join(`\n${pad}  `)}`.trimEnd());
    lines.push(...nested.filter((n) => n.trim()));
  });
  return lines.join('\n');
}
