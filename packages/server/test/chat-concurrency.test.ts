// Caps on chats in flight per API key and per assistant, end to end through the real agent host:
// a clear 429 RATE_LIMITED with Retry-After beyond them, other tenants unaffected, and a client
// that disconnects frees its slot.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { createApiKey } from '../src/index.js';
import { startE2E, type E2E } from './helpers/e2e.js';
import { until } from './helpers/until.js';

let e: E2E;
const open: AbortController[] = [];

before(async () => {
  e = await startE2E({ CHAT_CONCURRENCY_PER_KEY: '2', CHAT_CONCURRENCY_PER_ASSISTANT: '3' });
  // "slow" asks get a long stream (a word every 100 ms); anything else a quick answer.
  e.provider.fallback = (body: any) => {
    const last = body.messages.at(-1).content;
    return last === 'slow' ? { content: 'word '.repeat(400), chunkDelayMs: 100 } : { content: `You said: ${last}` };
  };
});
after(async () => {
  for (const c of open) c.abort();
  await e?.close();
});

async function activate(bot: string) {
  e.tg.addBot(bot);
  const id = await e.activate(bot);
  await e.waitForStatus(id, ['active']);
  return id;
}

async function newKey(email: string) {
  const s = e.runtime.services;
  return (await createApiKey({ users: s.users, secrets: e.runtime.secrets, now: () => new Date() }, email)).key;
}

/** Starts a streamed chat and returns once its answer has begun (the slot is held). */
async function startSlow(key: string, id: string) {
  const ctl = new AbortController();
  open.push(ctl);
  const res = await request(`${e.url}/api/v1/assistants/${id}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'assistant-agent', stream: true, messages: [{ role: 'user', content: 'slow' }] }),
    signal: ctl.signal,
  });
  assert.equal(res.statusCode, 200);
  res.body.on('error', () => {});
  // Read the first bytes: the worker is answering.
  await new Promise<void>((ok) => res.body.once('data', () => ok()));
  return ctl;
}

async function quick(key: string, id: string) {
  const res = await request(`${e.url}/api/v1/assistants/${id}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, json: JSON.parse(text) };
}

test('per key: the third chat in flight is refused, others are not, and a disconnect frees the slot', async () => {
  const a = await activate('7400000001:AAconcurrencyBotTokenNumberOne_abcdefgh');
  const b = await activate('7400000002:AAconcurrencyBotTokenNumberTwo_abcdefgh');
  const first = await startSlow(e.key, a);
  await startSlow(e.key, b);

  // A third chat of the same key, even with another assistant: 429 with the envelope and headers.
  const refused = await quick(e.key, b);
  assert.equal(refused.status, 429);
  assert.equal(refused.json.error.code, 'RATE_LIMITED');
  assert.match(refused.json.error.message, /API key already has 2 chats in progress/);
  assert.equal(refused.headers['retry-after'], '1');
  assert.equal(refused.headers['ratelimit-limit'], '2');
  assert.equal(refused.headers['ratelimit-remaining'], '0');

  // Another user's key with its own assistant is not affected.
  const other = await newKey('concurrency-other@example.com');
  const buy = await request(`${e.url}/api/v1/assistants/purchase`, {
    method: 'POST',
    headers: { 'x-api-key': other, 'content-type': 'application/json' },
    body: JSON.stringify({ apiMode: 'byok' }),
  });
  assert.equal(buy.statusCode, 201);
  const { deploymentId: c, checkoutUrl } = ((await buy.body.json()) as any).data;
  await request(`${e.url}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
  e.tg.addBot('7400000003:AAconcurrencyBotTokenNumberThree_abcdef');
  const act = await request(`${e.url}/api/v1/assistants/${c}/activate`, {
    method: 'POST',
    headers: { 'x-api-key': other, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Other',
      modelProvider: 'fakeai',
      modelId: 'fake-model-1',
      messengerBotToken: '7400000003:AAconcurrencyBotTokenNumberThree_abcdef',
      modelApiKey: 'sk-test-model-key-0123456789abcdef',
    }),
  });
  assert.equal(act.statusCode, 200, await act.body.text());
  await until(
    'the third assistant active',
    async () => {
      const s = await request(`${e.url}/api/v1/assistants/${c}/status`, { headers: { 'x-api-key': other } });
      return ((await s.body.json()) as any).data.status === 'active' || undefined;
    },
    5000,
    100,
  );
  assert.equal((await quick(other, c)).status, 200);

  // The client of the first stream goes away: its slot is freed, the key may chat again.
  first.abort();
  const after = await until(
    'the freed slot',
    async () => {
      const r = await quick(e.key, a);
      return r.status === 429 ? undefined : r;
    },
    5000,
    100,
  );
  assert.equal(after.status, 200, JSON.stringify(after.json));
  assert.equal(after.json.choices[0].message.content, 'You said: hi');
});

test('per assistant: its users’ keys together hold at most CHAT_CONCURRENCY_PER_ASSISTANT chats', async () => {
  for (const c of open.splice(0)) c.abort();
  const a = await activate('7400000004:AAconcurrencyBotTokenNumberFour_abcdef');
  const owner = e.runtime.services;
  const row = await owner.deployments.findById(a);
  const user = await owner.users.findById(row!.userId);
  // Three keys of the same owner: 2 + 1 streams fill the assistant's 3 slots.
  const k2 = await newKey(user!.email);
  const k3 = await newKey(user!.email);
  await startSlow(e.key, a);
  await startSlow(e.key, a);
  await startSlow(k2, a);
  const refused = await quick(k3, a);
  assert.equal(refused.status, 429);
  assert.match(refused.json.error.message, /assistant already has 3 chats in progress/);
  // The refusal took no key slot: k3 still has both of its own. (Found by its prefix: keys made in
  // the same millisecond list in id order, so the last one listed need not be k3.)
  const k3Row = (await owner.users.listKeys(user!.id)).find((k) => k3.startsWith(k.prefix));
  assert.ok(k3Row, 'k3 is listed');
  assert.equal(owner.limits.chats.count(`key:${k3Row.id}`), 0);
  for (const c of open.splice(0)) c.abort();
});
