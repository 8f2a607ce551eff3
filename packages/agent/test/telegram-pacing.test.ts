// Outbound pacing within Telegram's limits (DESIGN §7.2): the slots the pacer hands out, on a
// clock the test holds (no waiting).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pacer } from '../src/channels/telegram/pacing.js';

const T0 = 1_000_000;

test('one message a second per chat; other chats are not held up by it', () => {
  const p = new Pacer();
  assert.deepEqual([p.reserve(7, T0), p.reserve(7, T0), p.reserve(7, T0 + 100)], [T0, T0 + 1000, T0 + 2000]);
  assert.equal(p.reserve(8, T0), T0, 'another chat goes at once');
  assert.equal(p.reserve(7, T0 + 10_000), T0 + 10_000, 'a quiet chat goes at once again');
});

test('twenty a minute per group', () => {
  const p = new Pacer();
  const slots = Array.from({ length: 22 }, () => p.reserve(-100, T0));
  for (let i = 1; i < 20; i++) assert.equal(slots[i], T0 + i * 1000);
  assert.equal(slots[20], T0 + 60_000, 'the 21st waits until the first is a minute old');
  assert.equal(slots[21], T0 + 61_000);
  for (let i = 20; i < slots.length; i++) {
    const inMinute = slots.filter((s) => s > slots[i]! - 60_000 && s <= slots[i]!).length;
    assert.ok(inMinute <= 20, `${inMinute} in the minute before slot ${i}`);
  }
});

test('thirty a second per bot, across chats', () => {
  const p = new Pacer();
  const slots = Array.from({ length: 65 }, (_, i) => p.reserve(1000 + i, T0));
  assert.equal(slots.filter((s) => s === T0).length, 30);
  assert.equal(slots[30], T0 + 1000);
  assert.equal(slots[60], T0 + 2000);
});
