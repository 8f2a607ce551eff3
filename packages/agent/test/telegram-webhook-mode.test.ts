// Telegram webhook mode on the agent host (DESIGN §9.1): the bot sets its webhook (with its
// secret_token) instead of polling, its updates come back through POST /agents/{name}/updates (a
// stand-in for the control plane's ingress forwards them), and switching between webhook and
// polling loses no update and answers none twice. FakeTelegram as a local Bot API server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import { close, listen } from '@berth/testkit';
import { fakeModel } from './helpers/serve.js';
import { waitUntil } from './helpers/bed.js';
import { telegramHostBed } from './helpers/host-bed.js';

const ADMIN = 'admin-token-for-webhook-mode-0123456789';
const BOT = '7100000059:AAwebhookModeFakeTokenForTests_abcdef';
const SECRET = 'per_bot-secret_0123456789abcdef';
const bed = telegramHostBed(ADMIN, 'berth-webhook-mode-', [BOT], { telegramLongPoll: { timeoutS: 1 } });
const { tg, provider, host, store } = bed;
tg.localBotApi = true;
tg.webhookRetryMs = 20;
let ingress: Server;
let ingressUrl: string;
/** The stand-in ingress refuses (Telegram keeps the update and tries again). */
let ingressDown = false;
const secretsSeen: Array<string | undefined> = [];

before(async () => {
  // What the control plane's ingress does, minus the store: check the secret, hand the update on.
  ingress = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    secretsSeen.push(req.headers['x-telegram-bot-api-secret-token'] as string | undefined);
    if (ingressDown || req.headers['x-telegram-bot-api-secret-token'] !== SECRET) {
      res.statusCode = 503;
      return res.end();
    }
    const update = JSON.parse(String(Buffer.concat(chunks)));
    const r = await request(`${bed.url}/agents/alpha/updates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'telegram', channelId: 'c', updateKey: String(update.update_id), update }),
    });
    await r.body.dump();
    res.statusCode = r.statusCode === 200 ? 200 : 503;
    res.end();
  });
  ingressUrl = `${await listen(ingress)}/hooks/telegram/c`;
});
after(async () => {
  await close(ingress);
});

const put = (webhook: boolean) =>
  request(`${bed.url}/agents/alpha`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      gatewayToken: 'gw-alpha-0123456789abcdef',
      model: fakeModel(provider.url),
      telegram: { botToken: BOT, ...(webhook ? { webhook: { url: ingressUrl, secretToken: SECRET } } : {}) },
    }),
  }).then(async (r) => assert.equal(r.statusCode, 200, await r.body.text()));

const info = async () =>
  ((await (await fetch(`${tg.url}/bot${BOT}/getWebhookInfo`)).json()) as any).result as {
    url: string;
    pending_update_count: number;
  };
const answers = (chat: number) => tg.sent.filter((m) => m.chat_id === chat).map((m) => m.text);

test('webhook mode: setWebhook with the secret, the / menu set, no long poll, a message answered once', async () => {
  await put(true);
  await waitUntil(() => host.get('alpha')!.health().ready, 'alpha connected');
  assert.equal((await info()).url, ingressUrl);
  // The menu is set once the bot is known, whichever way its updates come (it was set only by a
  // polling bot: a bot in webhook mode had no / menu).
  await waitUntil(() => tg.commands(BOT) !== undefined, "the bot's / menu set");
  assert.ok(
    tg.commands(BOT)!.some((c: { command: string }) => c.command === 'reset'),
    JSON.stringify(tg.commands(BOT)),
  );
  provider.queue.push({ content: 'By webhook.' });
  tg.userSends(BOT, 5901, { text: 'hello' });
  await tg.waitForSent((m) => m.chat_id === 5901 && m.text === 'By webhook.');
  assert.equal(tg.polls(BOT), 0, 'no getUpdates in webhook mode');
  assert.ok(secretsSeen.every((s) => s === SECRET));
  assert.deepEqual(answers(5901), ['By webhook.']);
});

test('webhook → polling: what waited at Telegram is polled and answered once; the webhook is deleted', async () => {
  ingressDown = true;
  tg.userSends(BOT, 5902, { text: 'while switching' });
  await waitUntil(() => secretsSeen.length > 1, 'the refused delivery');
  provider.queue.push({ content: 'Polled after the switch.' });
  ingressDown = false;
  await put(false);
  await tg.waitForSent((m) => m.chat_id === 5902 && m.text === 'Polled after the switch.');
  assert.equal((await info()).url, '');
  assert.ok(tg.polls(BOT) > 0);
  assert.deepEqual(answers(5902), ['Polled after the switch.']);
});

test('polling → webhook: what the poll took is not sent again by the webhook; new messages arrive by it', async () => {
  provider.queue.push({ content: 'Polled.' });
  tg.userSends(BOT, 5903, { text: 'last polled' });
  await tg.waitForSent((m) => m.chat_id === 5903 && m.text === 'Polled.');
  await put(true);
  await waitUntil(() => host.get('alpha')!.health().ready, 'alpha connected again');
  provider.queue.push({ content: 'Webhook again.' });
  tg.userSends(BOT, 5904, { text: 'after the switch' });
  await tg.waitForSent((m) => m.chat_id === 5904 && m.text === 'Webhook again.');
  assert.equal((await info()).pending_update_count, 0);
  assert.deepEqual(answers(5903), ['Polled.'], 'the polled message was answered twice');
  assert.deepEqual(answers(5904), ['Webhook again.']);
});

test('a webhook URL Telegram refuses (not https on its own Bot API): failed, with a sentence', async () => {
  tg.localBotApi = false;
  await put(true);
  await waitUntil(() => host.get('alpha')!.health().status === 'failed' || !!host.get('alpha')!.trouble(), 'refused');
  assert.match(host.get('alpha')!.trouble() ?? '', /PUBLIC_BASE_URL must be an https address/);
  tg.localBotApi = true;
});

test('polling → webhook right after a poll took an update (not yet confirmed at Telegram): not answered again', async () => {
  await request(`${bed.url}/agents/alpha`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } }).then(
    (r) => r.body.dump(),
  );
  // What a poll that took this update and a stop before the next getUpdates leave behind: the
  // agent's offset past it, Telegram still holding it.
  const taken = tg.userSends(BOT, 5905, { text: 'taken by the last poll' });
  store.setTelegramOffset('alpha', taken + 1);
  await put(true);
  await waitUntil(() => host.get('alpha')!.health().ready, 'alpha connected');
  provider.queue.push({ content: 'Only this one.' });
  tg.userSends(BOT, 5906, { text: 'new' });
  await tg.waitForSent((m) => m.chat_id === 5906 && m.text === 'Only this one.');
  assert.deepEqual(answers(5905), []);
});
