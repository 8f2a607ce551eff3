// The typed client against a real control plane, agent host and fake provider: the key is set once,
// failures become BerthApiError with the table's code, and a streamed chat yields tool progress.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BerthApiError, createBerthClient, readChatStream, unwrap, type ChatStreamEvent } from '@berth/client';
import { startE2E, type E2E } from '../../server/test/helpers/e2e.js';

const BOT = '7200000031:AAclientFakeBotTokenForClientTests_xy';
let e: E2E;

before(async () => {
  e = await startE2E();
  e.tg.addBot(BOT);
});
after(async () => e.close());

test('the key is set once: purchase, list and get need no per-call credentials', async () => {
  const client = createBerthClient({ baseUrl: `${e.url}/`, apiKey: e.key });
  const bought = await unwrap(client.POST('/api/v1/assistants/purchase', { body: { apiMode: 'managed' } }));
  assert.match(bought.checkoutUrl, /\/checkout\//);
  const list = await unwrap(client.GET('/api/v1/assistants'));
  assert.ok(list.some((d) => d.id === bought.deploymentId));
  const one = await unwrap(
    client.GET('/api/v1/assistants/{deploymentId}', { params: { path: { deploymentId: bought.deploymentId } } }),
  );
  assert.equal(one.paymentStatus, 'pending');
});

test('an error envelope becomes a typed BerthApiError with the code, status and request id', async () => {
  const wrong = createBerthClient({ baseUrl: e.url, apiKey: 'bk_not-a-real-key' });
  const err = await unwrap(wrong.GET('/api/v1/assistants')).catch((x: unknown) => x);
  assert.ok(err instanceof BerthApiError);
  assert.equal(err.code, 'UNAUTHORIZED');
  assert.equal(err.status, 401);
  assert.match(err.requestId ?? '', /^[0-9a-f-]{36}$/);

  const client = createBerthClient({ baseUrl: e.url, apiKey: e.key });
  const { deploymentId, checkoutUrl } = await unwrap(
    client.POST('/api/v1/assistants/purchase', { body: { apiMode: 'byok' } }),
  );
  await fetch(`${e.url}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' });
  const bad = await unwrap(
    client.POST('/api/v1/assistants/{deploymentId}/activate', {
      params: { path: { deploymentId } },
      body: {
        name: 'x',
        modelProvider: 'fakeai',
        modelId: 'fake-model-1',
        messengerBotToken: 'nope',
        modelApiKey: 'k',
      },
    }),
  ).catch((x: unknown) => x);
  assert.ok(bad instanceof BerthApiError);
  assert.equal(bad.code, 'INVALID_INPUT', bad.message);
  assert.deepEqual(Object.keys(bad.fieldMessages(['name', 'messengerBotToken'])), ['messengerBotToken']);

  const missing = await unwrap(
    client.PATCH('/api/v1/assistants/{deploymentId}', {
      params: { path: { deploymentId } },
      body: { nmae: 'typo' } as never,
    }),
  ).catch((x: unknown) => x);
  assert.ok(missing instanceof BerthApiError);
  assert.equal(missing.code, 'INVALID_REQUEST');
});

test('an unreachable server is a NETWORK_ERROR, not an unhandled rejection', async () => {
  const client = createBerthClient({ baseUrl: 'http://127.0.0.1:9', apiKey: e.key });
  const err = await unwrap(client.GET('/api/v1/assistants')).catch((x: unknown) => x);
  assert.ok(err instanceof BerthApiError);
  assert.equal(err.code, 'NETWORK_ERROR');
});

test('a streamed chat yields the tool progress, the text and the usage, with the session echoed', async () => {
  const id = await e.activate(BOT);
  await e.waitForStatus(id, ['active']);
  const client = createBerthClient({ baseUrl: e.url, apiKey: e.key });
  e.provider.queue.push(
    { toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] },
    { content: 'Forty-two.' },
  );
  const res = await client.POST('/api/v1/assistants/{deploymentId}/chat/completions', {
    params: { path: { deploymentId: id }, header: { 'X-Assistant-Session-Id': 'client-s1' } },
    body: { model: 'assistant-agent', messages: [{ role: 'user', content: '6*7?' }], stream: true },
    parseAs: 'stream',
  });
  assert.equal(res.response.status, 200);
  assert.equal(res.response.headers.get('x-assistant-session-id'), 'client-s1');
  const events: ChatStreamEvent[] = [];
  for await (const ev of readChatStream(res.response.body!)) events.push(ev);
  const kinds = events.map((x) => x.type);
  assert.deepEqual(
    events.find((x) => x.type === 'progress'),
    {
      type: 'progress',
      tool: 'calculator',
      emoji: '🧮',
      label: 'Calculating 6*7',
    },
  );
  assert.ok(kinds.indexOf('progress') < kinds.indexOf('delta'), 'progress arrives before the answer');
  const text = events.map((x) => (x.type === 'delta' ? x.text : '')).join('');
  assert.equal(text, 'Forty-two.');
  assert.ok(kinds.includes('usage'));
  assert.equal(kinds.at(-1), 'done');
});
