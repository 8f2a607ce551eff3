// Telegram's parse_mode "HTML", as strict as the real Bot API where it matters: only its tags,
// balanced, no tags inside code, no nested blockquotes, and its own 400 texts when it refuses.
// Returns the text a user would see (what Telegram stores as the message's `text`).

const TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-spoiler',
  'span',
  'tg-emoji',
]);
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

export type HtmlVerdict = { ok: true; text: string } | { ok: false; description: string };

const refuse = (why: string): HtmlVerdict => ({ ok: false, description: `Bad Request: can't parse entities: ${why}` });

export function parseTelegramHtml(html: string): HtmlVerdict {
  const open: string[] = [];
  let text = '';
  const at = (i: number) => Buffer.byteLength(html.slice(0, i));
  let i = 0;
  while (i < html.length) {
    const ch = html[i]!;
    if (ch === '&') {
      const m = /^&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/.exec(html.slice(i, i + 12));
      const name = m?.[1];
      if (name && (name.startsWith('#') || name in ENTITIES)) {
        text += name.startsWith('#x')
          ? String.fromCodePoint(Number.parseInt(name.slice(2), 16))
          : name.startsWith('#')
            ? String.fromCodePoint(Number(name.slice(1)))
            : ENTITIES[name]!;
        i += m[0].length;
        continue;
      }
      // Telegram keeps an "&" that starts no entity it knows as it is.
      text += ch;
      i++;
      continue;
    }
    if (ch !== '<') {
      text += ch;
      i++;
      continue;
    }
    const end = html.indexOf('>', i);
    if (end < 0) return refuse(`Unclosed start tag at byte offset ${at(i)}`);
    const raw = html.slice(i + 1, end);
    if (raw.startsWith('/')) {
      const name = raw.slice(1).trim().toLowerCase();
      const expected = open.pop();
      if (expected === undefined) return refuse(`Unexpected end tag at byte offset ${at(i)}`);
      if (name !== expected)
        return refuse(`Unmatched end tag at byte offset ${at(i)}, expected "</${expected}>", found "</${name}>"`);
      i = end + 1;
      continue;
    }
    const m = /^([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*$/.exec(raw);
    if (!m) return refuse(`Unsupported start tag "${raw.split(/\s/)[0]}" at byte offset ${at(i)}`);
    const name = m[1]!.toLowerCase();
    if (!TAGS.has(name)) return refuse(`Unsupported start tag "${name}" at byte offset ${at(i)}`);
    const inside = open.at(-1);
    // Code and pre hold text only (except <pre><code class="language-…">).
    if ((inside === 'code' || inside === 'pre') && !(inside === 'pre' && name === 'code'))
      return refuse(`Can't parse entities in "${inside}": unexpected start tag "${name}" at byte offset ${at(i)}`);
    if (name === 'blockquote' && open.includes('blockquote'))
      return refuse(`Can't nest blockquote entities at byte offset ${at(i)}`);
    if (name === 'span' && !/class\s*=\s*"tg-spoiler"/.test(m[2] ?? ''))
      return refuse(`Unsupported start tag "span" at byte offset ${at(i)}`);
    open.push(name);
    i = end + 1;
  }
  if (open.length) return refuse(`Can't find end tag corresponding to start tag "${open.at(-1)}"`);
  return { ok: true, text };
}
