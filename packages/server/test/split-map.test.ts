// The reconciler's index and a restoring pass's sets of worker names are split in parts, so no
// hash table of 100,000 names doubles in one step (the start-up pass's longest block). What they
// hold must be what a Map or a Set would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { partOf, SplitMap, SplitSet } from '../src/platform/split-map.js';

test('100,000 worker names spread over the parts: none holds more than twice its share', () => {
  const counts = new Map<number, number>();
  for (let i = 0; i < 100_000; i++) {
    const p = partOf(`asst-${randomUUID()}`);
    counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  assert.equal(counts.size, 64);
  assert.ok(Math.max(...counts.values()) < (2 * 100_000) / 64, `largest part ${Math.max(...counts.values())}`);
});

test('a SplitMap answers as a Map does, and its iteration survives deleting the entry it is at', () => {
  const m = new SplitMap<number>();
  const names = Array.from({ length: 1000 }, (_, i) => (i === 7 ? 'a' : `asst-${randomUUID()}`));
  names.forEach((n, i) => m.set(n, i));
  m.set(names[3]!, 33);
  assert.equal(m.size, 1000);
  assert.equal(m.get(names[3]!), 33);
  assert.equal(m.get('a'), 7);
  assert.equal(m.get('missing'), undefined);
  assert.equal(m.has('missing'), false);
  const seen: string[] = [];
  for (const [k, v] of m) {
    seen.push(k);
    if (v % 2) m.delete(k);
  }
  assert.deepEqual(seen.sort(), [...names].sort());
  assert.equal(m.size, 500);
  assert.ok(m.has(names[0]!) && !m.has(names[1]!));
  assert.equal(m.delete(names[1]!), false);

  const s = new SplitSet();
  for (const n of names) s.add(n).add(n);
  assert.equal(s.size, 1000);
  assert.ok(s.has(names[999]!) && !s.has('nope'));
  assert.deepEqual([...s].sort(), [...names].sort());
});

test("a SplitMap's parts, walked with forEachIn, hold every entry once, with its value", () => {
  const m = new SplitMap<number>();
  const names = Array.from({ length: 1000 }, () => `asst-${randomUUID()}`);
  names.forEach((n, i) => m.set(n, i));
  const seen = new Map<string, number>();
  for (let part = 0; part < m.partCount; part++)
    m.forEachIn(part, (v, k) => {
      assert.ok(!seen.has(k), `${k} once`);
      assert.equal(partOf(k), part, 'in its own part');
      seen.set(k, v);
    });
  assert.equal(seen.size, 1000);
  for (const [i, n] of names.entries()) assert.equal(seen.get(n), i);
});
