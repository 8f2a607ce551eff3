// Model answers for the renderers' property tests (Telegram's and the Markdown channels'): each
// file picks its own pieces of Markdown, these make answers of them and check the parts.
import fc from 'fast-check';

/** Half a surrogate pair with its other half missing: what a cut through a pair leaves. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Up to 200 pieces, the whole repeated up to 60 times: long answers and long runs of one thing. */
export const answersOf = (piece: fc.Arbitrary<string>) =>
  fc.tuple(fc.array(piece, { maxLength: 200 }), fc.integer({ min: 1, max: 60 })).map(([a, n]) => a.join('').repeat(n));

/** A run that ends within 16 units of a part's end (`max`), then a few pieces: cuts right at the edge. */
export const nearTheEdge = (piece: fc.Arbitrary<string>, max: number) =>
  fc
    .tuple(fc.integer({ min: max - 16, max }), fc.array(piece, { minLength: 1, maxLength: 20 }))
    .map(([k, a]) => 'a'.repeat(k) + a.join(''));
