// The one retry delay: each caller's schedule is the one it had before backoff() replaced its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoff } from '../src/platform/jobs/backoff.js';

test('backoff doubles from its base, stops at its cap, and never overflows', () => {
  const runner = { baseMs: 1000, capMs: 60_000 };
  assert.deepEqual(
    [0, 1, 2, 5, 6, 7].map((a) => backoff(a, runner)),
    [1000, 2000, 4000, 32_000, 60_000, 60_000],
  );
  const host = { baseMs: 250, capMs: 30_000 };
  assert.deepEqual(
    [1, 6, 7, 8].map((a) => backoff(a, host)),
    [500, 16_000, 30_000, 30_000],
  );
  const cancel = { baseMs: 5000, capMs: 3_600_000 };
  assert.equal(backoff(9, cancel), 2_560_000);
  assert.equal(backoff(10, cancel), 3_600_000);
  // A job retried for weeks still gets a finite delay: the cap.
  assert.equal(backoff(5000, cancel), 3_600_000);
  assert.equal(backoff(-1, cancel), 5000, 'a negative count is the first attempt');
});
