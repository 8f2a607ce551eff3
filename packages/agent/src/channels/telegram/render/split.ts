// Parts Telegram accepts (at most 4,096 characters each): blocks are packed whole, separated by a
// blank line, and a part ends between blocks. Only a block longer than a whole part is cut, at a
// line break or a space, with its open tags closed at the cut and opened again in the next part:
// a huge code block becomes several closed <pre> blocks, never a part ending inside one.
// No cut falls inside a character as a reader sees it: not between a surrogate pair's halves, nor
// inside a flag, a ZWJ family or a letter and its accent (Intl.Segmenter's graphemes).
import { graphemeCut, packParts } from '../../markdown/split.js';

export { graphemeCut };
export const TELEGRAM_MAX_MESSAGE = 4096;

/** Splits plain text, preferring paragraph, then line, then word breaks. */
export function splitMessage(text: string, max = TELEGRAM_MAX_MESSAGE): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    const window = rest.slice(0, max);
    let cut = window.lastIndexOf('\n\n');
    if (cut < max / 2) cut = window.lastIndexOf('\n');
    if (cut < max / 2) cut = window.lastIndexOf(' ');
    if (cut < max / 2) cut = max;
    cut = codePointCut(rest, graphemeCut(rest, cut), max);
    parts.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest) parts.push(rest);
  return parts;
}

/** Packs rendered blocks (each with its tags closed) into parts of at most `max` characters. */
export function splitHtml(blocks: string[], max = TELEGRAM_MAX_MESSAGE): string[] {
  return packParts(blocks, max, {
    text: (block) => block,
    cut: cutBlock,
    // Telegram refuses a message with nothing to show ("message text is empty").
    shows: (part) => visibleText(part).trim() !== '',
  });
}

type Piece = { kind: 'tag'; raw: string; name: string; closing: boolean } | { kind: 'text'; raw: string };

/** Our own renderer's HTML in tags and text runs (entities stay whole inside text runs). */
function tokenize(html: string): Piece[] {
  const out: Piece[] = [];
  let i = 0;
  while (i < html.length) {
    if (html[i] === '<') {
      const end = html.indexOf('>', i);
      const raw = html.slice(i, end + 1);
      const m = /^<(\/?)([a-z-]+)/i.exec(raw)!;
      out.push({ kind: 'tag', raw, name: m[2]!.toLowerCase(), closing: m[1] === '/' });
      i = end + 1;
    } else {
      const next = html.indexOf('<', i);
      const end = next < 0 ? html.length : next;
      out.push({ kind: 'text', raw: html.slice(i, end) });
      i = end;
    }
  }
  return out;
}

/** An opening tag longer than this share (1/n) of a part is dropped when its block is cut. */
const TAG_SHARE = 8;

/** Cuts one block too long for a part into parts, closing and reopening its tags at each cut. */
function cutBlock(block: string, max: number): string[] {
  const parts: string[] = [];
  // `dropped`: an opening tag too long to be opened again in every part (a link whose URL runs
  // for thousands of characters, as a linkified run of text without spaces): its text is kept,
  // the tag and its closing one are left out, or each part would hold the whole tag again.
  const open: Array<{ name: string; raw: string; dropped?: boolean }> = [];
  let current = '';
  const closers = () =>
    open
      .filter((t) => !t.dropped)
      .reverse()
      .map((t) => `</${t.name}>`)
      .join('');
  const reopen = () =>
    open
      .filter((t) => !t.dropped)
      .map((t) => t.raw)
      .join('');
  const emit = () => {
    // Telegram drops a message's trailing blanks anyway; the fake and the tests need not guess.
    const part = current.replace(/\s+$/, '') + closers();
    if (visibleText(part).trim()) parts.push(part);
    current = reopen();
  };
  for (const piece of tokenize(block)) {
    if (piece.kind === 'tag') {
      if (piece.closing) {
        if (open.pop()?.dropped) continue;
      } else if (piece.raw.length > max / TAG_SHARE) {
        open.push({ name: piece.name, raw: piece.raw, dropped: true });
        continue;
      } else open.push({ name: piece.name, raw: piece.raw });
      // An opening tag with no room for any text after it starts the next part.
      if (!piece.closing && current.length + piece.raw.length + closers().length + 1 > max) {
        open.pop();
        emit();
        open.push({ name: piece.name, raw: piece.raw });
      }
      current += piece.raw;
      continue;
    }
    let text = piece.raw;
    while (text) {
      const room = max - current.length - closers().length;
      if (text.length <= room) {
        current += text;
        break;
      }
      let cut = cutPoint(text, room);
      if (cut <= 0) {
        if (visibleText(current)) {
          emit();
          continue;
        }
        cut = firstUnit(text); // a part with no room at all still moves on
      }
      current += text.slice(0, cut);
      text = text.slice(cut);
      emit();
      // A cut at a line break or space leaves it at the end of the part, not at the next one's start.
    }
  }
  if (visibleText(current + closers()).trim()) parts.push(current + closers());
  return parts;
}

/** Where to cut `text` to keep at most `room` characters: after a line break, a space, or anywhere safe. */
function cutPoint(text: string, room: number): number {
  if (room <= 0) return 0;
  const window = text.slice(0, room);
  let cut = window.lastIndexOf('\n') + 1;
  if (cut < room / 2) cut = window.lastIndexOf(' ') + 1;
  if (cut < room / 2) cut = room;
  // Never inside a grapheme, an entity (&amp;) or between the halves of a surrogate pair.
  cut = graphemeCut(text, cut);
  // A grapheme at the text's start with no room for it whole goes to the next part (cut 0).
  if (cut > room) return 0;
  const amp = window.lastIndexOf('&', cut - 1);
  if (amp >= 0 && text.indexOf(';', amp) >= cut) cut = amp;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return cut;
}

/** One character as the reader sees it: an entity, a surrogate pair or one code unit. */
function firstUnit(text: string): number {
  if (text[0] === '&') return text.indexOf(';') + 1 || 1;
  const code = text.charCodeAt(0);
  return code >= 0xd800 && code <= 0xdbff ? 2 : 1;
}

/** `cut` kept within `max` and off the middle of a surrogate pair (a grapheme longer than a part). */
function codePointCut(text: string, cut: number, max: number): number {
  if (cut <= max) return cut;
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

function visibleText(html: string) {
  return html.replace(/<[^>]*>/g, '');
}
