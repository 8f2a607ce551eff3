// The owner's view of an assistant's reminders (issue 57 R5): the owner lists what each end user
// asked for and cancels one or all, and a cancelled reminder never reaches Telegram. Through the
// whole product: the control plane over HTTP, its real agent host, FakeTelegram, the fake model
// provider scheduling through its tool call (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createApiKey } from '../src/index.js';
import { callApi } from './helpers/http-api.js';
import { startWithActiveBot, type E2E } from './helpers/e2e.js';

const BOT = '7300000095:AAownerSeesAndClearsRemindersBotToken_ab';
let e: E2E;
let id: string;

before(async () => ({ e, id } = await startWithActiveBot(BOT)));
after(async () => e.close());

const base = () => `/api/v1/assistants/${id}/reminders`;
const soon = (ms: number) => new Date(Date.now() + ms).toISOString();

/** The user of private chat `chat` asks; the model schedules `calls` and says `said`. */
async function schedule(chat: number, calls: Array<Record<string, unknown>>, said: string) {
  e.provider.queue.push({ toolCalls: calls.map((a) => ({ name: 'schedule_message', arguments: a })) });
  e.provider.queue.push({ content: said });
  e.tg.userSends(BOT, chat, { text: 'please remind me' });
  await e.tg.waitForSent((m) => m.chat_id === chat && m.text === said, 15_000);
}

async function listed(): Promise<Array<Record<string, unknown>>> {
  const res = await e.api('GET', base());
  assert.equal(res.status, 200, res.text);
  return res.json.data;
}

test('the owner sees every end user’s reminders; one cancelled is never delivered, a later one is', async () => {
  const cancelAt = soon(5000);
  const laterAt = soon(7000);
  await schedule(
    9501,
    [
      { text: 'cancel me', at: cancelAt },
      { text: 'deliver me', at: laterAt },
    ],
    'Both set.',
  );
  await schedule(9502, [{ text: 'summarise the news', task: true, at: soon(3_600_000) }], 'Task set.');

  const all = await listed();
  const view = all.map(({ id: _id, ...r }) => r);
  assert.deepEqual(view, [
    { user: 'tg:9501', chatId: '9501', text: 'cancel me', task: false, at: cancelAt, cron: null, timezone: null },
    { user: 'tg:9501', chatId: '9501', text: 'deliver me', task: false, at: laterAt, cron: null, timezone: null },
    {
      user: 'tg:9502',
      chatId: '9502',
      text: 'summarise the news',
      task: true,
      at: view[2]!.at,
      cron: null,
      timezone: null,
    },
  ]);
  const cancelId = String(all[0]!.id);
  assert.match(cancelId, /^[0-9a-f]{8}$/);

  const gone = await e.api('DELETE', `${base()}/${cancelId}`);
  assert.equal(gone.status, 200, gone.text);
  assert.deepEqual(gone.json.data, { success: true, removed: 1 });
  assert.deepEqual(
    (await listed()).map((r) => r.text),
    ['deliver me', 'summarise the news'],
  );

  // The later one arriving is the event: by then the cancelled one's time has passed.
  const delivered = await e.tg.waitForSent((m) => m.chat_id === 9501 && m.text === '⏰ deliver me', 15_000);
  assert.ok(Date.now() >= Date.parse(cancelAt), `${delivered.text} came after the cancelled one's time`);
  assert.deepEqual(
    e.tg.sent.filter((m) => m.chat_id === 9501 && m.text.startsWith('⏰')).map((m) => m.text),
    ['⏰ deliver me'],
    'the cancelled reminder never reached Telegram',
  );

  const again = await e.api('DELETE', `${base()}/${cancelId}`);
  assert.equal(again.status, 404, again.text);
  assert.equal(again.json.error.code, 'NOT_FOUND');
  assert.match(again.json.error.message, /No pending reminder/);
  const malformed = await e.api('DELETE', `${base()}/not-an-id`);
  assert.equal(malformed.status, 404, malformed.text);
  assert.equal(malformed.json.error.message, 'No such reminderId.');
});

test("another owner's key finds no such assistant, and cancels nothing", async () => {
  const { key: other } = await createApiKey(
    { users: e.runtime.services.users, secrets: e.runtime.secrets, now: () => new Date() },
    `reminders-other-${Date.now()}@example.com`,
  );
  const before = await listed();
  assert.ok(before.length > 0);
  for (const [method, path] of [
    ['GET', base()],
    ['DELETE', `${base()}/${before[0]!.id}`],
    ['DELETE', base()],
  ] as const) {
    const res = await callApi(e.url, other, method, path);
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    assert.equal(res.json.error.code, 'NOT_FOUND');
    assert.ok(!res.text.includes('summarise the news'));
  }
  assert.deepEqual(await listed(), before, 'nothing was cancelled');
});

test('clearing all cancels every end user’s reminders, says how many, and their /reminders is empty', async () => {
  await schedule(9503, [{ text: 'one more', at: soon(3_600_000) }], 'Set.');
  const count = (await listed()).length;
  assert.ok(count >= 2, `${count}`);
  const res = await e.api('DELETE', base());
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.data, { success: true, removed: count });
  assert.deepEqual(await listed(), []);
  e.tg.userSends(BOT, 9503, { text: '/reminders' });
  await e.tg.waitForSent((m) => m.chat_id === 9503 && m.text === 'You have no scheduled messages.');
});

test('a stopped assistant: ASSISTANT_NOT_READY, before any call to a worker', async () => {
  const stop = await e.api('POST', `/api/v1/assistants/${id}/stop`);
  assert.equal(stop.status, 200, stop.text);
  await e.waitForStatus(id, ['stopped']);
  for (const method of ['GET', 'DELETE'] as const) {
    const res = await e.api(method, base());
    assert.equal(res.status, 409, res.text);
    assert.equal(res.json.error.code, 'ASSISTANT_NOT_READY');
    assert.match(res.json.error.message, /^The assistant is stopped; its reminders live in its running worker/);
  }
});
