// Parts of a rendered answer for a channel with a message limit (WhatsApp 4,096, Discord 2,000):
// blocks are packed whole, a blank line apart, and a part ends between blocks. A block longer than
// a part is cut at a line break, else a space, else between characters as a reader sees them
// (never inside a surrogate pair, a flag or a ZWJ family). A code block is never split open: each
// piece is closed and opened again with its language, so every part reads as valid Markdown.
// Pure; Telegram's HTML has its own cuts (telegram/render/split.ts), which share graphemeCut and
// packParts.

/** A rendered block: text as the channel shows it, or a fenced code block to keep closed. */
export type Block = { kind: 'text'; text: string } | { kind: 'code'; open: string; body: string; close: string };

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** How far past a cut a grapheme may still reach: enough for any emoji sequence met in practice. */
const GRAPHEME_REACH = 64;

/**
 * `cut` moved back to the start of the grapheme it falls in, or forward past it when that grapheme
 * starts the text (a single "character" longer than a part: better long than cut in two). Only the
 * text up to a little past the cut is segmented, so each cut costs at most one part's length.
 */
export function graphemeCut(text: string, cut: number): number {
  if (cut <= 0 || cut >= text.length) return cut;
  const seg = graphemes.segment(text.slice(0, cut + GRAPHEME_REACH)).containing(cut)!;
  if (seg.index === cut) return cut;
  return seg.index > 0 ? seg.index : seg.index + seg.segment.length;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;

/**
 * Where to cut `text` so the first piece is at most `room` long: a line break, else a space (in the
 * second half), else the last whole grapheme; a grapheme longer than `room` is cut between code
 * points, never between a surrogate pair's halves.
 */
export function cutPoint(text: string, room: number): number {
  if (text.length <= room) return text.length;
  const window = text.slice(0, room + 1);
  let cut = window.lastIndexOf('\n');
  if (cut < room / 2) cut = window.lastIndexOf(' ');
  if (cut < room / 2) cut = graphemeCut(text, room);
  if (cut > room || cut <= 0) cut = isHigh(text.charCodeAt(room - 1)) ? room - 1 : room;
  // Never inside a run of backticks: half a fence in each part would open a block in both.
  let run = cut;
  while (run > 0 && text[run - 1] === '`' && text[run] === '`') run--;
  if (run > 0) cut = run;
  return Math.max(1, cut);
}

/** A text too long for one part, in pieces of at most `max`, cut where cutPoint says. */
function cutText(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const cut = cutPoint(rest, max);
    const piece = rest.slice(0, cut).trimEnd();
    if (piece) out.push(piece);
    rest = rest.slice(cut).replace(/^[ \n]+/, '');
  }
  if (rest.trim()) out.push(rest);
  return out;
}

const whole = (b: Block) => (b.kind === 'text' ? b.text : `${b.open}${b.body}${b.close}`);

/** A block as pieces that each fit a part; a code block's pieces each closed and opened again. */
function cutBlock(b: Block, max: number): string[] {
  if (b.kind === 'text') return cutText(b.text, max);
  const room = max - b.open.length - b.close.length;
  // A fence longer than a part (a pathological language tag) goes as text rather than loop.
  if (room < 16) return cutText(whole(b), max);
  const out: string[] = [];
  let rest = b.body;
  while (rest.length > room) {
    const cut = cutPoint(rest, room);
    out.push(`${b.open}${rest.slice(0, cut).replace(/\n$/, '')}${b.close}`);
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  if (rest) out.push(`${b.open}${rest}${b.close}`);
  return out;
}

/**
 * The answer's blocks in parts of at most `max` characters, and never none: an answer that renders
 * to nothing a reader sees (an empty code block, a lone "#") goes as `fallback`, the model's own
 * text as the channel shows it, and an answer of only blanks as "…" (no channel takes an empty
 * message).
 */
export function packAnswer(blocks: Block[], fallback: string, max: number): string[] {
  const parts = packBlocks(blocks, max);
  return parts.length ? parts : packBlocks([{ kind: 'text', text: fallback.trim() || EMPTY_ANSWER }], max);
}

/** What an answer with nothing to show is sent as. */
const EMPTY_ANSWER = '…';

/** The blocks in parts of at most `max` characters, in order; none empty. */
export function packBlocks(blocks: Block[], max: number): string[] {
  // A block with nothing in it is left out, not joined on as a blank paragraph.
  return packParts(
    blocks.filter((b) => whole(b).trim()),
    max,
    { text: whole, cut: cutBlock, shows: (part) => part.trim() !== '' },
  );
}

/** How packParts reads a channel's blocks. */
export interface Packing<B> {
  /** The block as it stands in a part. */
  text(block: B): string;
  /** A block longer than a part, in pieces that each fit one. */
  cut(block: B, max: number): string[];
  /** Whether a part has anything a reader sees: one that has not is not sent. */
  shows(part: string): boolean;
}

/**
 * Blocks packed whole into parts of at most `max` characters, a blank line apart; a part ends
 * between blocks, and only a block longer than a whole part is cut. Every channel packs this way
 * (Telegram's HTML in telegram/render/split.ts, the Markdown of the others here).
 */
export function packParts<B>(blocks: B[], max: number, how: Packing<B>): string[] {
  const parts: string[] = [];
  let current = '';
  const flush = () => {
    if (how.shows(current)) parts.push(current);
    current = '';
  };
  for (const b of blocks) {
    const text = how.text(b);
    const joined = current ? `${current}\n\n${text}` : text;
    if (joined.length <= max) {
      current = joined;
      continue;
    }
    flush();
    if (text.length <= max) current = text;
    else {
      const pieces = how.cut(b, max);
      // The last piece may share its part with the blocks that follow.
      for (const p of pieces.slice(0, -1)) parts.push(p);
      current = pieces.at(-1) ?? '';
    }
  }
  flush();
  return parts;
}
