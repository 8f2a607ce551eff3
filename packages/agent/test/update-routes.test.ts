// Webhook updates from the control plane's ingress (DESIGN §9.1) on the agent host's admin API:
// POST /agents/{name}/updates hands a Telegram update to the assistant's bot as a polled one is
// handled (answered in the chat), a repeat of one key is answered 200 and not handled again (the
// control plane delivers at least once), and what cannot be taken yet is a 409 to ask again later.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { TakenUpdates } from '../src/admin/update-routes.js';
import { fakeModel } from './helpers/serve.js';
import { waitUntil } from './helpers/bed.js';
import { telegramHostBed } from './helpers/host-bed.js';

const ADMIN = 'admin-token-for-update-routes-0123456789';
const BOT = '7100000058:AAupdateRoutesFakeTokenForTests_abcd';
const bed = telegramHostBed(ADMIN, 'berth-updates-', [BOT]);
const { tg, provider, host } = bed;

const put = (name: string, telegram: boolean) =>
  request(`${bed.url}/agents/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      gatewayToken: `gw-${name}-0123456789abcdef`,
      model: fakeModel(provider.url),
      ...(telegram ? { telegram: { botToken: BOT } } : {}),
    }),
  }).then((r) => assert.equal(r.statusCode, 200));

async function post(name: string, body: unknown, token = ADMIN) {
  const res = await request(`${bed.url}/agents/${name}/updates`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, json: (await res.body.json()) as any };
}

const tgUpdate = (updateId: number, chat: number, text: string) => ({
  channel: 'telegram',
  channelId: '6f1c2a4e-58aa-4a52-9b39-7d1e0c0f0058',
  updateKey: String(updateId),
  update: {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat, type: 'private', first_name: 'Ada' },
      from: { id: chat, is_bot: false, first_name: 'Ada' },
      text,
    },
  },
});

test('a Telegram update is answered in its chat; the same key again is answered 200 and not handled twice', async () => {
  await put('alpha', true);
  await waitUntil(() => host.get('alpha')!.health().ready, 'alpha connected');
  provider.queue.push({ content: 'Through the webhook.' });
  const first = await post('alpha', tgUpdate(58001, 5801, 'hi'));
  assert.equal(first.status, 200, JSON.stringify(first.json));
  assert.deepEqual(first.json, { data: { taken: true, repeated: false } });
  await tg.waitForSent((m) => m.chat_id === 5801 && m.text === 'Through the webhook.');
  const again = await post('alpha', tgUpdate(58001, 5801, 'hi'));
  assert.deepEqual(again.json, { data: { taken: true, repeated: true } });
  // A later update of the same chat is handled: the model is asked once per update.
  provider.queue.push({ content: 'Second.' });
  await post('alpha', tgUpdate(58002, 5801, 'again'));
  await tg.waitForSent((m) => m.chat_id === 5801 && m.text === 'Second.');
  assert.equal(tg.sent.filter((m) => m.chat_id === 5801).length, 2);
  assert.equal(provider.requests.length, 2);
});

test('a channel the assistant does not run: 409 to ask again; bad body 400; unknown agent 404; no token 401', async () => {
  await put('bravo', false);
  const none = await post('bravo', tgUpdate(58003, 5802, 'x'));
  assert.equal(none.status, 409);
  assert.equal(none.json.error.code, 'ASSISTANT_NOT_READY');
  const wa = await post('alpha', { ...tgUpdate(58004, 5802, 'x'), channel: 'whatsapp' });
  assert.equal(wa.status, 409);
  assert.equal((await post('alpha', { channel: 'telegram' })).status, 400);
  assert.equal((await post('nobody', tgUpdate(58005, 5802, 'x'))).status, 404);
  assert.equal((await post('alpha', tgUpdate(58006, 5802, 'x'), 'wrong')).status, 401);
});

test('the record of taken keys is bounded: the oldest is forgotten first', () => {
  const t = new TakenUpdates(3);
  for (const k of ['a', 'b', 'c', 'd']) t.add(k);
  assert.deepEqual(
    ['a', 'b', 'c', 'd'].map((k) => t.has(k)),
    [false, true, true, true],
  );
});
