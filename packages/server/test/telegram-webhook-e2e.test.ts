// Telegram in webhook mode end to end (DESIGN §9.1): TELEGRAM_DELIVERY=webhook, the real control
// plane and its agent host, FakeTelegram as a local Bot API server. The worker's bot sets its
// webhook to the control plane's ingress with its secret; a user's message goes Telegram → ingress
// (stored) → worker → answer, once, and nobody polls. Stopping the assistant deletes the webhook
// (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { activeBot, startE2E, type E2E } from './helpers/e2e.js';
import { freePort } from './helpers/callback-receiver.js';
import { eventually } from './helpers/eventually.js';

const BOT = '7200000059:AAtelegramWebhookEndToEndTokenForTests';
let e: E2E;
let id: string;

before(async () => {
  const port = await freePort();
  e = await startE2E({
    TELEGRAM_DELIVERY: 'webhook',
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  });
  e.tg.localBotApi = true;
  e.tg.webhookRetryMs = 50;
  id = await activeBot(e, BOT, {}, 30_000);
});
after(async () => e?.close());

const webhookInfo = async () => ((await (await fetch(`${e.tg.url}/bot${BOT}/getWebhookInfo`)).json()) as any).result;

test('start-up warned that Telegram itself wants https', () => {
  assert.ok(e.logs.some((l) => l.includes('TELEGRAM_DELIVERY=webhook with an http PUBLIC_BASE_URL')));
});

test('a message reaches the worker through the ingress and is answered once; nobody polls', async () => {
  const info = await webhookInfo();
  assert.equal(info.url, `${e.url}/hooks/telegram/${id}`);
  assert.deepEqual(
    info.allowed_updates,
    ['message', 'edited_message', 'callback_query'],
    'messages, their edits and button presses',
  );
  e.provider.queue.push({ content: 'Hello from the webhook.' });
  e.tg.userSends(BOT, 6001, { text: 'hi' });
  await e.tg.waitForSent((m) => m.chat_id === 6001 && m.text === 'Hello from the webhook.', 15_000);
  assert.equal(e.tg.polls(BOT), 0);
  const rows = await eventually(
    () => e.runtime.store.db.selectFrom('channel_updates').selectAll().execute(),
    (r) => r.length === 1 && r[0]!.delivered_at !== null,
  );
  assert.equal(rows[0]!.type, 'telegram');
  assert.equal(e.tg.sent.filter((m) => m.chat_id === 6001).length, 1);
});

test('stopping the assistant deletes its webhook; what comes meanwhile waits at Telegram', async () => {
  const res = await e.api('POST', `/api/v1/assistants/${id}/stop`);
  assert.equal(res.status, 200);
  await e.waitForStatus(id, ['stopped'], 30_000);
  const info = await eventually(webhookInfo, (i) => i.url === '');
  assert.equal(info.url, '');
  e.tg.userSends(BOT, 6002, { text: 'anyone?' });
  assert.equal((await webhookInfo()).pending_update_count, 1);
});
