// The reconciler's slicer reports the longest stretch its work held the event loop (bench:scale
// reads it as "the reconciler's longest block"). A wait for I/O in between (a PostgreSQL read) is
// not a block; a read that settles without the loop turning (SQLite's) does not split one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { slicer } from '../src/platform/yield-now.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

test('a wait for I/O between two steps is not counted as holding the event loop', async () => {
  const slice = slicer(1_000);
  busy(5);
  await slice.across(sleep(400));
  busy(5);
  slice.end();
  assert.ok(slice.longestMs < 400, `longest block ${slice.longestMs} ms counts the 400 ms wait`);
  assert.ok(slice.longestMs >= 5);
});

test('a read that settles without the loop turning keeps the slice going', async () => {
  const slice = slicer(1_000);
  busy(30);
  await slice.across(Promise.resolve(1));
  busy(30);
  slice.end();
  assert.ok(slice.longestMs >= 60, `longest block ${slice.longestMs} ms, the loop was held for 60`);
});
