// The host's / menu calls (issue 64): one at a time, every bot's default menu before any
// translation, and a stopped bot's calls dropped unmade.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MenuQueue } from '../src/channels/telegram/menu-queue.js';

test("every bot's default menu is set before any translated one, one call at a time", async () => {
  const q = new MenuQueue(0);
  const made: string[] = [];
  let inFlight = 0;
  let most = 0;
  const call = (name: string) => async () => {
    most = Math.max(most, ++inFlight);
    await new Promise((r) => setImmediate(r));
    made.push(name);
    inFlight--;
  };
  const live = new AbortController().signal;
  const bot = (b: string) =>
    Promise.all([
      q.add(0, live, call(`${b}:default`)),
      q.add(1, live, call(`${b}:de`)),
      q.add(1, live, call(`${b}:fr`)),
    ]);
  await Promise.all([bot('a'), bot('b'), bot('c')]);
  assert.deepEqual(made.slice(0, 3).sort(), ['a:default', 'b:default', 'c:default']);
  assert.equal(made.length, 9);
  assert.equal(most, 1);
});

test("a stopped bot's waiting calls are dropped, not made", async () => {
  const q = new MenuQueue(0);
  const made: string[] = [];
  const stop = new AbortController();
  const first = q.add(0, new AbortController().signal, async () => {
    made.push('other');
    stop.abort();
  });
  const dropped = q.add(1, stop.signal, async () => {
    made.push('stopped bot');
  });
  await first;
  await assert.rejects(dropped);
  assert.deepEqual(made, ['other']);
});

test("the host's queue makes at most 25 menu calls a second (the 50 it made before held 4–5 % of a core)", async () => {
  const q = new MenuQueue();
  const starts: number[] = [];
  const live = new AbortController().signal;
  await Promise.all([0, 1, 2, 3].map(() => q.add(1, live, async () => starts.push(performance.now()))));
  const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
  // A timer may fire up to a millisecond early by performance.now's clock.
  for (const gap of gaps) assert.ok(gap >= 39, `${gap.toFixed(1)} ms between two calls`);
});
