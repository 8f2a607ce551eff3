// Outbound pacing within Telegram's limits (DESIGN §7.2): the slots the pacer hands out, on a
// clock the test holds (no waiting).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pacer, TELEGRAM_PACING } from '../src/channels/telegram/pacing.js';

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

test('a slot whose timer fires late (a busy process) still leaves the next message a second after it really went', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
  const p = new Pacer();
  const went: number[] = [];
  // Telegram answers each at once.
  const send = () =>
    p.wait(7).then((answered) => {
      went.push(Date.now());
      answered();
    });
  const all = [send(), send(), send()];
  await settle();
  // The process is busy from T0 to T0 + 1,150: the second message's slot (T0 + 1,000) fires late.
  t.mock.timers.tick(1150);
  await settle();
  assert.deepEqual(went, [T0, T0 + 1150]);
  // The third's slot was T0 + 2,000: a second after the second really went is T0 + 2,150.
  t.mock.timers.tick(850);
  await settle();
  assert.deepEqual(went, [T0, T0 + 1150], 'not 850 ms after the one before');
  t.mock.timers.tick(150);
  await Promise.all(all);
  assert.deepEqual(went, [T0, T0 + 1150, T0 + 2150]);
});

test("a message slow to arrive: the chat's next one leaves a second after Telegram answered it, not after it left", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
  const p = new Pacer();
  const went: number[] = [];
  const first = await p.wait(7);
  went.push(Date.now());
  const second = p.wait(7).then((answered) => {
    went.push(Date.now());
    answered();
  });
  // The first is on its way for 300 ms (a slow network, a busy process): Telegram takes it at T0 + 300.
  t.mock.timers.tick(300);
  first();
  t.mock.timers.tick(999);
  await settle();
  assert.deepEqual(went, [T0], 'not a second after it left, when it had not yet arrived');
  t.mock.timers.tick(1);
  await second;
  assert.deepEqual(went, [T0, T0 + 1300]);
  // Another chat is not held up by it.
  const other = await p.wait(8);
  other();
  assert.equal(Date.now(), T0 + 1300);
});

test("the bot's limit counts a message when it leaves: one held by its chat's slow answer does not leave beside a full second", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
  const p = new Pacer({ ...TELEGRAM_PACING, perBotPerSecond: 2 });
  const went: Array<[string, number]> = [];
  const send = (name: string, chat: number) =>
    p.wait(chat).then((answered) => {
      went.push([name, Date.now()]);
      return answered;
    });
  // Chat 1's first message takes 1.5 s to be answered; its second waits for that, then a second.
  const first = await send('1a', 1);
  const second = send('1b', 1).then((answered) => answered());
  t.mock.timers.tick(1500);
  first();
  await settle();
  // Two other chats fill the bot's second at T0 + 2,000.
  t.mock.timers.tick(500);
  for (const answered of await Promise.all([send('3', 3), send('4', 4)])) answered();
  t.mock.timers.tick(500);
  await settle();
  assert.deepEqual(went.at(-1), ['4', T0 + 2000], 'not yet: the second at T0 + 2,500 already holds two');
  t.mock.timers.tick(500);
  await second;
  assert.deepEqual(went.at(-1), ['1b', T0 + 3000]);
});

test("a channel that stops: a message waiting for its chat's previous answer stops waiting", async () => {
  const p = new Pacer();
  const stop = new AbortController();
  await p.wait(7, stop.signal); // in flight, never answered
  const next = p.wait(7, stop.signal);
  stop.abort();
  assert.equal(typeof (await next), 'function');
});

/** Lets the promises the timers resolved run (setImmediate is not on the test's clock). */
function settle() {
  return new Promise((r) => setImmediate(r));
}
