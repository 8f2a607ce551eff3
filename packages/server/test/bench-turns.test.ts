// The benchmarks' turns (bench/turns.ts): bench:proxy's 1-client line and bench:proxy-ab compare
// paths whose turns are interleaved, so the order must not always put one path after the same one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { turnOrder } from '../bench/turns.js';

test('every round gives each path one turn, and over 2n rounds each path follows each other one equally often', () => {
  for (const n of [2, 3, 4, 5, 6]) {
    const follows = new Map<string, number>();
    for (let r = 0; r < 2 * n; r++) {
      const order = turnOrder(r, n);
      assert.deepEqual(
        [...order].sort((a, b) => a - b),
        Array.from({ length: n }, (_, i) => i),
      );
      for (let k = 1; k < n; k++) {
        const pair = `${order[k - 1]}→${order[k]}`;
        follows.set(pair, (follows.get(pair) ?? 0) + 1);
      }
    }
    // 2n rounds of n-1 pairs each are 2n(n-1) pairs in all, over n(n-1) ordered pairs: twice each.
    assert.equal(follows.size, n * (n - 1), `n=${n}: ${[...follows.keys()].join(' ')}`);
    for (const [pair, count] of follows) assert.equal(count, 2, `n=${n}: ${pair} ${count} times`);
  }
});

test('no path runs two turns in a row across a round boundary (three paths and more)', () => {
  for (const n of [3, 4, 5, 6]) {
    for (let r = 0; r < 4 * n; r++) {
      const last = turnOrder(r, n).at(-1);
      assert.notEqual(
        turnOrder(r + 1, n)[0],
        last,
        `n=${n}: round ${r} ends and round ${r + 1} starts with path ${last}`,
      );
    }
  }
});
