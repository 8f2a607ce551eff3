// Reminders and scheduled tasks: one timer per host (node:test mock timers for the clock), claims
// in the real SQLite store, delivery through grammY to FakeTelegram, restarts of the host.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BURST_MS, defaultSettings } from '@berth/contracts/settings';
import { captureLogs, startServe, withServe } from './helpers/serve.js';
import { SessionStore } from '../src/storage/sessions.js';
import { userData } from '../src/storage/user-data.js';
import type { Schedule } from '../src/storage/schedules.js';
import { Scheduler, type SchedulerOptions } from '../src/scheduler/scheduler.js';
import { scheduleTools } from '../src/tools/schedule/index.js';
import { fakeTelegramBed, waitUntil } from './helpers/bed.js';
import { hostClock } from './helpers/host-clock.js';
import { CREDITS_SENTENCE, DAILY_LIMIT_SENTENCE } from '../src/channels/telegram/bot.js';
import { counters } from '../src/ops/counters.js';
import { NotSentError } from '../src/channels/channel.js';
import { TelegramOutbound } from '../src/channels/telegram/outbound.js';

const abort = new AbortController().signal;
const T0 = Date.UTC(2026, 4, 1, 8, 0, 0);
const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

function rig(dir = mkdtempSync(join(tmpdir(), 'berth-sched-')), opts: Partial<SchedulerOptions> = {}) {
  const store = new SessionStore(dir);
  const delivered: Array<{ id: string; text: string; at: number; due: number }> = [];
  const scheduler = new Scheduler(userData(store).schedules, captureLogs().logger, opts);
  const delivery = {
    ready: () => true,
    deliver: async (s: Schedule) => {
      delivered.push({ id: s.id, text: s.text, at: Date.now(), due: s.nextAt });
      return 'sent' as const;
    },
  };
  const tools = (user = 'tg:1', agent = 'a1') =>
    scheduleTools(
      { schedules: userData(store).schedules, wake: () => scheduler.wake() },
      { agent, user, chat: `telegram:${user.slice(3)}` },
    );
  /** A tool's answer as the model gets it (a refusal rejects). */
  const call = (tool: string, args: object, user?: string) =>
    tools(user)
      .find((x) => x.name === tool)!
      .run(args as Record<string, unknown>, abort);
  const run = async (tool: string, args: object, user?: string) => JSON.parse(await call(tool, args, user));
  /** The host stops: its timer first (claims still waiting go back to the store), then the store. */
  const close = () => {
    scheduler.close();
    store.close();
  };
  return { dir, store, delivered, scheduler, delivery, call, run, close };
}
type Rig = ReturnType<typeof rig>;

/** A schedule as the store keeps it: a one-off reminder of `agent` for Telegram user `tgUser` in their private chat, unless `more` says otherwise. */
const scheduleRow = (
  s: { id: string; agent: string; tgUser: number; text: string; nextAt: number },
  more: Partial<Pick<Schedule, 'task' | 'cron' | 'timezone'>> = {},
): Omit<Schedule, 'status' | 'sent' | 'createdAt'> => ({
  id: s.id,
  agent: s.agent,
  user: `tg:${s.tgUser}`,
  chat: `telegram:${s.tgUser}`,
  text: s.text,
  task: false,
  at: null,
  cron: null,
  timezone: null,
  nextAt: s.nextAt,
  ...more,
});

/** The clock the tests below move by hand, starting at T0. */
const mockClock = (t: TestContext) => t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });

/** A test on the mocked clock with one rig, closed after it whatever it did. */
async function onMockedClock(t: TestContext, body: (r: Rig) => Promise<void>) {
  mockClock(t);
  const r = rig();
  try {
    await body(r);
  } finally {
    r.close();
  }
}

test("a reminder is delivered at its due time, exactly once, by the host's one timer", (t) =>
  onMockedClock(t, async (r) => {
    r.scheduler.register('a1', r.delivery);
    const ok = await r.run('schedule_message', {
      text: 'stretch',
      at: '2026-05-01T10:01:00',
      timezone: 'Europe/Berlin',
    });
    assert.equal(ok.scheduled.next, '2026-05-01T08:01:00.000Z', 'local time in its zone');
    t.mock.timers.tick(0);
    t.mock.timers.tick(59_000);
    await flush();
    assert.equal(r.delivered.length, 0, 'not before its time');
    t.mock.timers.tick(1000);
    await flush();
    assert.deepEqual(
      r.delivered.map((d) => [d.text, d.at - d.due]),
      [['stretch', 0]],
    );
    t.mock.timers.tick(7_200_000);
    await flush();
    assert.equal(r.delivered.length, 1, 'once');
    assert.deepEqual((await r.run('list_scheduled_messages', {})).scheduled, []);
  }));

test('a repeating message follows its cron in its time zone; a stopped assistant sends nothing', (t) =>
  onMockedClock(t, async (r) => {
    r.scheduler.register('a1', r.delivery);
    await r.run('schedule_message', { text: 'drink water', cron: '30 * * * *', timezone: 'Asia/Kolkata' });
    t.mock.timers.tick(0);
    for (let h = 0; h < 3; h++) {
      t.mock.timers.tick(3_600_000);
      await flush();
    }
    // Kolkata is UTC+5:30: ":30 local" is ":00 UTC", so 09:00, 10:00 and 11:00 UTC.
    assert.deepEqual(
      r.delivered.map((d) => new Date(d.at).toISOString()),
      ['2026-05-01T09:00:00.000Z', '2026-05-01T10:00:00.000Z', '2026-05-01T11:00:00.000Z'],
    );
    r.scheduler.unregister('a1');
    t.mock.timers.tick(3 * 3_600_000);
    await flush();
    assert.equal(r.delivered.length, 3, 'nothing while stopped');
  }));

test('across a restart of the host the reminder comes once; two timers on one store never both send', (t) => {
  mockClock(t);
  const first = rig();
  return (async () => {
    first.scheduler.register('a1', first.delivery);
    for (let i = 0; i < 20; i++)
      await first.run('schedule_message', { text: `r${i}`, at: new Date(T0 + 60_000).toISOString() }, `tg:${i % 2}`);
    t.mock.timers.tick(30_000);
    first.close();
    // The host comes back (same data dir) twice over: two timers racing for the same rows.
    const a = rig(first.dir);
    const b = rig(first.dir);
    try {
      a.scheduler.register('a1', a.delivery);
      b.scheduler.register('a1', b.delivery);
      t.mock.timers.tick(0);
      t.mock.timers.tick(30_000);
      await flush();
      const all = [...a.delivered, ...b.delivered].map((d) => d.text).sort();
      assert.equal(all.length, 20);
      assert.equal(new Set(all).size, 20, 'each exactly once');
      assert.equal(first.delivered.length, 0);
      // What makes that hold between processes: a claim made on a stale read loses.
      await a.run('schedule_message', { text: 'stale', cron: '0 * * * *' });
      const [row] = userData(a.store).schedules.due(Date.now() + 3_600_000, ['a1']);
      const repoB = userData(b.store).schedules;
      assert.equal(userData(a.store).schedules.claim(row!, { end: 'done' }, true), true);
      assert.equal(repoB.claim(row!, { end: 'done' }, true), false, 'the second claim of one occurrence fails');
      assert.equal(repoB.claim(row!, { nextAt: row!.nextAt + 3_600_000 }, true), false);
    } finally {
      a.close();
      b.close();
    }
  })();
});

test('sends go side by side per assistant, bounded per assistant; a claim still waiting when the host stops is handed back and sent once after', (t) => {
  mockClock(t);
  const first = rig(undefined, { perAssistant: 2 });
  return (async () => {
    // a1's sends hang (a slow bot); a2's go through. Six due at one instant for a1, one for a2.
    const hanging: string[] = [];
    first.scheduler.register('a1', {
      ready: () => true,
      deliver: (s) => (hanging.push(s.text), new Promise(() => {})),
    });
    first.scheduler.register('a2', first.delivery);
    const repo = userData(first.store).schedules;
    const add = (agent: string, i: number) =>
      repo.add(
        scheduleRow({
          id: `${agent}00${i}`.padEnd(8, '0'),
          agent,
          tgUser: 1,
          text: `${agent}-${i}`,
          nextAt: T0 + 1000,
        }),
      );
    for (let i = 0; i < 6; i++) add('a1', i);
    add('a2', 0);
    t.mock.timers.tick(0);
    t.mock.timers.tick(1000);
    await flush();
    assert.deepEqual(
      first.delivered.map((d) => d.text),
      ['a2-0'],
      "one bot's stuck burst does not hold up another's",
    );
    assert.deepEqual(hanging, ['a1-0', 'a1-1'], 'at most perAssistant in flight for one assistant');
    assert.equal(repo.countActive('a1'), 0, 'all six claimed before any was sent');
    // The host stops: the four claims still waiting for a slot go back; the two in flight stay sent.
    first.scheduler.close();
    assert.equal(repo.countActive('a1'), 4);
    first.store.close();
    const again = rig(first.dir);
    try {
      again.scheduler.register('a1', again.delivery);
      t.mock.timers.tick(0);
      await flush();
      const texts = again.delivered.map((d) => d.text).sort();
      assert.deepEqual(texts, ['a1-2', 'a1-3', 'a1-4', 'a1-5']);
      assert.ok(!texts.some((x) => hanging.includes(x)), 'none sent twice');
    } finally {
      again.close();
    }
  })();
});

test("bad schedules are a clear tool answer and change nothing; another user's id is not found", (t) =>
  onMockedClock(t, async (r) => {
    const refuse = (args: object, re: RegExp) => assert.rejects(r.call('schedule_message', args), re);
    await refuse({ text: 'x', at: '2026-04-30T08:00:00Z' }, /already passed/);
    await refuse({ text: 'x', cron: '* * * * * *' }, /more often than once an hour/);
    await refuse({ text: 'x', cron: '*/30 * * * *' }, /more often than once an hour/);
    await refuse({ text: 'x', cron: '0,59 9 * * *' }, /more often than once an hour/);
    await refuse({ text: 'x', at: '2026-06-01T09:00:00', timezone: 'Mars/Olympus_Mons' }, /not a time zone/);
    await refuse({ text: 'x', at: 'tomorrow at nine' }, /not an ISO 8601 time/);
    await refuse({ text: 'x', cron: 'every day' }, /not a cron pattern/);
    await refuse({ text: 'x', at: '2026-06-01T09:00:00Z', cron: '0 9 * * *' }, /exactly one of/);
    await r.run('schedule_message', { text: 'daily', cron: '0 9 * * *' });
    assert.equal(userData(r.store).schedules.countActive('a1'), 1, 'only the valid daily pattern was kept');
    // Five users with their share of ten each fill the assistant's 50.
    for (let i = 1; i < 50; i++)
      await r.run(
        'schedule_message',
        { text: `n${i}`, cron: `${i % 60} ${i % 24} * * *` },
        `tg:${1 + Math.floor(i / 10)}`,
      );
    await assert.rejects(
      r.call('schedule_message', { text: 'one too many', cron: '0 0 * * *' }, 'tg:6'),
      /already has 50 active/,
    );
    const mine = (await r.run('list_scheduled_messages', {})).scheduled as Array<{ id: string }>;
    await assert.rejects(r.call('cancel_scheduled_message', { id: mine[0]!.id }, 'tg:2'), /not found/);
    assert.equal(userData(r.store).schedules.countActive('a1'), 50, 'nothing changed');
    assert.deepEqual((await r.run('list_scheduled_messages', {}, 'tg:9')).scheduled, []);
    assert.deepEqual(await r.run('cancel_scheduled_message', { id: mine[0]!.id }), {
      ok: true,
      cancelled: mine[0]!.id,
    });
  }));

test('one user keeps at most 10 of the 50, others still can; a one-off time more than 366 days ahead is refused in words (issue 57 R5)', (t) =>
  onMockedClock(t, async (r) => {
    const schedule = (args: object, user = 'tg:1') => r.call('schedule_message', args, user);
    await assert.rejects(schedule({ text: 'x', at: '9999-12-31T23:59:00Z' }), /too far ahead: .* at most 366 days/);
    // 2026-05-01 + 366 days is 2027-05-02: a birthday next year is fine, the day after the bound is not.
    await assert.rejects(schedule({ text: 'x', at: '2027-05-03T08:00:00Z' }), /too far ahead/);
    await schedule({ text: 'birthday', at: '2027-04-30T09:00:00Z' });
    for (let i = 1; i < 10; i++) await schedule({ text: `n${i}`, cron: `${i} ${i} * * *` });
    await assert.rejects(schedule({ text: 'eleventh', cron: '0 0 * * *' }), /already has 10 active .* one person/);
    await schedule({ text: 'someone else', cron: '0 0 * * *' }, 'tg:2');
    assert.equal(userData(r.store).schedules.countActive('a1'), 11);
  }));

const TOKEN = '7000000027:AAremindFakeTokenForAgentTests_abcdef';
const { tg, provider } = fakeTelegramBed(TOKEN);

test('a stop waits for the sends it cut short to hand their claims back: settled() resolves only after the release', async () => {
  const r = rig();
  let finish: ((outcome: 'unsent') => void) | undefined;
  const delivery = { ready: () => true, deliver: () => new Promise<'unsent'>((res) => (finish = res)) };
  try {
    r.scheduler.register('a1', delivery);
    await r.run('schedule_message', { text: 'call mum', at: new Date(Date.now() + 1_000).toISOString() });
    await waitUntil(() => finish !== undefined, 'the send started');
    assert.equal(userData(r.store).schedules.countActive('a1'), 0, 'claimed');
    r.scheduler.unregister('a1');
    let settled = false;
    const done = r.scheduler.settled('a1').then(() => (settled = true));
    await new Promise((res) => setImmediate(res));
    assert.equal(settled, false, 'not while the send runs');
    finish!('unsent');
    await done;
    assert.equal(userData(r.store).schedules.countActive('a1'), 1, 'handed back by then');
  } finally {
    r.close();
  }
});

test('a reminder cut short after its first part is not "not sent": handing it back would send that part twice', async () => {
  const sent: string[] = [];
  const api = {
    sendMessage: async (_chat: number, text: string) => {
      if (sent.length) throw new NotSentError('sendMessage not sent: the channel stopped');
      sent.push(text);
      return { message_id: sent.length };
    },
  };
  const out = new TelegramOutbound(api as never);
  const twoParts = `⏰ ${'word '.repeat(1_000)}`;
  const err = await out.sendText('5700000032', twoParts, { markdown: false }).catch((e: unknown) => e);
  assert.equal(sent.length, 1);
  assert.ok(err instanceof Error && !(err instanceof NotSentError), String(err));
  // Nothing sent yet: still not sent, so the reminder is handed back.
  sent.length = 0;
  const first = await new TelegramOutbound({
    sendMessage: async () => {
      throw new NotSentError('sendMessage not sent: the channel stopped');
    },
  } as never)
    .sendText('5700000032', '⏰ short', { markdown: false })
    .catch((e: unknown) => e);
  assert.ok(first instanceof NotSentError);
});

test('a reminder whose send waits for its turn when the host stops is sent once by the next host, not lost', async () => {
  const clock = hostClock();
  const chat = 5_700_000_031;
  const reminder = (m: { chat_id: number; text: string }) => m.chat_id === chat && m.text === '⏰ water the plants';
  const s = await startServe({ provider, telegram: tg, botToken: TOKEN, clockFile: clock.file });
  let again: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    const due = clock.now() + 3_600_000;
    provider.queue.push({
      toolCalls: [
        { name: 'schedule_message', arguments: { text: 'water the plants', at: new Date(due).toISOString() } },
      ],
    });
    provider.queue.push({ content: 'Noted.' });
    tg.userSends(TOKEN, chat, { text: 'remind me in an hour to water the plants' });
    await tg.waitForSent((m) => m.chat_id === chat && m.text === 'Noted.');
    // Telegram asks the chat's next answer to wait 20 s: a chat's messages leave in order, so the
    // reminder, due meanwhile, waits behind it (pacing.ts) when the host stops.
    tg.throttle.push({ method: 'sendMessage', retryAfter: 20 });
    tg.userSends(TOKEN, chat, { text: 'hello' });
    await waitUntil(() => tg.throttle.length === 0, 'Telegram asked the answer to wait');
    await clock.moveTo(due, s.logs);
    await s.close(true);
    assert.equal(tg.sent.filter(reminder).length, 0, 'the stopped host sent nothing');

    again = await startServe({ provider, telegram: tg, botToken: TOKEN, dataDir: s.dataDir, clockFile: clock.file });
    await tg.waitForSent(reminder, 15_000);
    // Anything sent after it in that chat comes after the reminder would have come a second time.
    tg.userSends(TOKEN, chat, { text: 'thanks' });
    await tg.waitForSent((m) => m.chat_id === chat && m.text === 'You said: thanks', 15_000);
    assert.equal(tg.sent.filter(reminder).length, 1, 'exactly once');
  } finally {
    await again?.close(true);
  }
});

test('asked in Telegram: the reminder arrives in that chat within 2 s of its time, once, also after a restart', async () => {
  const s = await startServe({ provider, telegram: tg, botToken: TOKEN });
  let again: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    // Due after the answer and the restart: the answer waits for the user's burst to end first.
    const due = Date.now() + 2500 + DEFAULT_BURST_MS;
    provider.queue.push({
      toolCalls: [
        { name: 'schedule_message', arguments: { text: 'take the cake out', at: new Date(due).toISOString() } },
      ],
    });
    provider.queue.push({ content: 'I will remind you.' });
    tg.userSends(TOKEN, 701, { text: 'remind me in 2 seconds to take the cake out' });
    await tg.waitForSent((m) => m.chat_id === 701 && m.text === 'I will remind you.');
    tg.userSends(TOKEN, 701, { text: '/reminders' });
    const listed = await tg.waitForSent((m) => m.chat_id === 701 && m.text.startsWith('Your scheduled messages'));
    assert.match(listed.text, /take the cake out[\s\S]*\/cancel_[0-9a-f]{8}/);
    // The host restarts before it is due.
    await s.close(true);
    again = await startServe({ provider, telegram: tg, botToken: TOKEN, dataDir: s.dataDir });
    const got = await tg.waitForSent((m) => m.chat_id === 701 && m.text === '⏰ take the cake out', 15_000);
    assert.ok(got);
    const lag = Date.now() - due;
    assert.ok(lag < 2000 + 1000, `delivered ${lag} ms after its time`);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(tg.sent.filter((m) => m.text === '⏰ take the cake out').length, 1, 'exactly once');

    // A task runs a turn with its text as the prompt and sends the answer; another user cannot cancel.
    const taskDue = Date.now() + 1500 + DEFAULT_BURST_MS;
    provider.queue.push({
      toolCalls: [
        {
          name: 'schedule_message',
          arguments: { text: 'weather report please', task: true, at: new Date(taskDue).toISOString() },
        },
      ],
    });
    provider.queue.push({ content: 'Scheduled.' });
    tg.userSends(TOKEN, 701, { text: 'every morning give me the weather' });
    await tg.waitForSent((m) => m.chat_id === 701 && m.text === 'Scheduled.');
    await tg.waitForSent((m) => m.chat_id === 701 && m.text === 'You said: weather report please', 15_000);
    const taskCall = provider.requests.find((r) => r.body.messages.at(-1)?.content === 'weather report please')!;
    assert.ok(
      !(taskCall.body.tools ?? []).some((t: any) => t.function.name === 'schedule_message'),
      'a task cannot schedule more',
    );

    userData(again.store).schedules.add(
      scheduleRow(
        { id: 'abcdef12', agent: 'test-agent', tgUser: 701, text: 'later', nextAt: Date.now() + 86_400_000 },
        { cron: '0 9 * * *' },
      ),
    );
    tg.userSends(TOKEN, 702, { text: '/cancel_abcdef12' });
    assert.match((await tg.waitForSent((m) => m.chat_id === 702)).text, /No scheduled message of yours/);
    tg.userSends(TOKEN, 701, { text: '/cancel_abcdef12' });
    await tg.waitForSent((m) => m.chat_id === 701 && m.text === 'Cancelled.');
    assert.equal(userData(again.store).schedules.countActive('test-agent'), 0);
  } finally {
    await again?.close(true);
  }
});

test('a stopped assistant, or one whose owner switched reminders off, sends nothing', () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async (s) => {
    const schedules = userData(s.store).schedules;
    const row = (id: string, text: string) =>
      schedules.add(scheduleRow({ id, agent: 'test-agent', tgUser: 703, text, nextAt: Date.now() + 1000 }));
    s.agent.useSettings({ ...defaultSettings(), tools: { ...defaultSettings().tools, reminders: false } });
    const before = { ...counters.scheduledSends };
    row('0000aaaa', 'switched off');
    s.scheduler.wake();
    await new Promise((r) => setTimeout(r, 2500));
    // The operator's metrics say nothing was sent (berth_scheduled_sends_total{outcome}).
    assert.equal(counters.scheduledSends.skipped, before.skipped + 1, 'counted as skipped');
    assert.equal(counters.scheduledSends.sent, before.sent, 'not as sent');
    s.agent.useSettings(defaultSettings());
    await s.agent.stop();
    row('0000bbbb', 'stopped');
    s.scheduler.wake();
    await new Promise((r) => setTimeout(r, 2500));
    assert.deepEqual(
      tg.sent.filter((m) => m.chat_id === 703),
      [],
    );
    assert.equal(schedules.get('0000bbbb')?.status, 'active', 'it waits for the assistant, unclaimed');
  }));

test('a refused repeating task: told once with the credits sentence, not retried, its next occurrence kept', () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async (s) => {
    const schedules = userData(s.store).schedules;
    const due = Date.now() + 1000;
    // Its hour 10 to 14 hours from now in Berlin, whatever the time of day the test runs at (a fixed
    // 09:00 came due within the hour when run between 08:00 and 09:00 Berlin time).
    const hour = (new Date().getUTCHours() + 12) % 24;
    schedules.add(
      scheduleRow(
        { id: '0000cccc', agent: 'test-agent', tgUser: 704, text: 'morning news', nextAt: due },
        { task: true, cron: `0 ${hour} * * *`, timezone: 'Europe/Berlin' },
      ),
    );
    // What Berth's model gateway answers when the allowance or cap is spent.
    provider.queue.push({ status: 429, error: { message: 'allowance spent', code: 'CREDITS_EXHAUSTED' } });
    const calls = provider.requests.length;
    const refused = counters.scheduledSends.refused;
    s.scheduler.wake();
    const told = await tg.waitForSent((m) => m.chat_id === 704, 10_000);
    assert.equal(told.text, `⏰ morning news\n\n${CREDITS_SENTENCE}`);
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(provider.requests.length, calls + 1, 'asked once, never again');
    assert.equal(counters.scheduledSends.refused, refused + 1, 'counted as refused, not sent');
    assert.equal(tg.sent.filter((m) => m.chat_id === 704).length, 1, 'told once');
    const row = schedules.get('0000cccc')!;
    assert.equal(row.status, 'active', 'a repeat is kept');
    assert.ok(row.nextAt > due + 3_600_000, 'and moved to its next occurrence');
  }));

test("a scheduled turn is held to the owner's access rules: a revoked user gets nothing, a daily cap counts tasks", () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async (s) => {
    const schedules = userData(s.store).schedules;
    const row = (id: string, user: number, text: string, task: boolean) =>
      schedules.add(scheduleRow({ id, agent: 'test-agent', tgUser: user, text, nextAt: Date.now() + 500 }, { task }));
    const base = defaultSettings();
    const access = (a: Partial<typeof base.access>) =>
      s.agent.useSettings({ ...base, access: { ...base.access, ...a } });
    const fire = async () => {
      s.scheduler.wake();
      await new Promise((r) => setTimeout(r, 1500));
      await s.scheduler.idle();
    };
    // 705 is no longer on the allowlist: neither the task nor the reminder runs; no model call.
    access({ mode: 'allowlist', telegramUserIds: [706] });
    let calls = provider.requests.length;
    row('0000dd01', 705, 'revoked task', true);
    row('0000dd02', 705, 'revoked reminder', false);
    await fire();
    assert.equal(provider.requests.length, calls, 'no model call for a revoked user');
    assert.deepEqual(
      tg.sent.filter((m) => m.chat_id === 705),
      [],
    );
    assert.equal(schedules.get('0000dd01')?.status, 'done', 'ended, not waiting to be retried');
    // 706 may have 1 reply a day: the first task is it; the second is told once, the third is silence.
    access({ mode: 'allowlist', telegramUserIds: [706], perUserDailyReplies: 1 });
    calls = provider.requests.length;
    row('0000dd03', 706, 'task one', true);
    await fire();
    row('0000dd04', 706, 'task two', true);
    await fire();
    row('0000dd05', 706, 'task three', true);
    row('0000dd06', 706, 'plain reminder', false);
    await fire();
    assert.equal(provider.requests.length, calls + 1, 'one model call: the day allows one reply');
    assert.deepEqual(
      tg.sent.filter((m) => m.chat_id === 706).map((m) => m.text),
      ['You said: task one', `⏰ task two\n\n${DAILY_LIMIT_SENTENCE}`, '⏰ plain reminder'],
    );
  }));
