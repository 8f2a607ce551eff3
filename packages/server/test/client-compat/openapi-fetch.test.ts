// Client compatibility: a typed client generated from the live OpenAPI document — openapi-typescript
// makes the `paths` types (the ones @berth/client ships, checked here against the document this
// server serves), openapi-fetch calls the API with the key set once in createClient. This file compiling is half the proof: no
// operation demands the key (or anything else undocumented) per call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import { readSse } from '@berth/contracts';
import type { paths } from '@berth/client';
import { CLIENT_SCHEMA_FILE, clientSchemaSource } from '../../../../scripts/generate-client.js';
import { MODEL, sessionId, setUpCompatBed, TOOL_ANSWER, WRONG_KEY, type CompatBed } from '../helpers/client-compat.js';

let bed: CompatBed;
/** The idiomatic client: no media type chosen, `data` is each operation's JSON answer. */
let client: ReturnType<typeof createClient<paths>>;
const CHAT = '/api/v1/assistants/{deploymentId}/chat/completions';

setUpCompatBed((b) => {
  bed = b;
  client = createClient<paths>({ baseUrl: bed.e.url, headers: { 'X-API-Key': bed.e.key } });
});

test('the types are what openapi-typescript generates from GET /api/openapi now', async () => {
  const doc = (await (await fetch(`${bed.e.url}/api/openapi`)).json()) as Record<string, unknown>;
  assert.equal(
    await clientSchemaSource(doc),
    readFileSync(CLIENT_SCHEMA_FILE, 'utf8'),
    'packages/client/src/generated/schema.ts is stale: run npm run generate:client',
  );
});

test('list, get and status with the key set once', async () => {
  const list = await client.GET('/api/v1/assistants');
  assert.equal(list.response.status, 200);
  assert.ok(Array.isArray(list.data?.data) && list.data.data.some((d) => d.id === bed.id));

  const path = { deploymentId: bed.id };
  const one = await client.GET('/api/v1/assistants/{deploymentId}', { params: { path } });
  assert.equal(one.data?.data.id, bed.id);
  assert.equal(one.data?.data.status, 'active');

  const status = await client.GET('/api/v1/assistants/{deploymentId}/status', { params: { path } });
  assert.equal(status.data?.data.status, 'active');

  const paged = await client.GET('/api/v1/assistants', { params: { query: { limit: 1 } } });
  assert.equal(paged.data?.data.length, 1);
});

test('purchase with an idempotency key: the same slot twice', async () => {
  const params = { header: { 'idempotency-key': sessionId('purchase') } };
  const first = await client.POST('/api/v1/assistants/purchase', { params, body: { apiMode: 'byok' } });
  assert.equal(first.response.status, 201);
  assert.match(first.data?.data.checkoutUrl ?? '', /^http/);
  const again = await client.POST('/api/v1/assistants/purchase', { params, body: { apiMode: 'byok' } });
  assert.equal(again.data?.data.deploymentId, first.data?.data.deploymentId);
});

test('chat: the completion with usage, with and without a tool call', async () => {
  const params = { path: { deploymentId: bed.id } };
  const plain = await client.POST(CHAT, {
    params,
    body: { model: MODEL, messages: [{ role: 'user', content: 'hello openapi-fetch' }] },
  });
  assert.equal(plain.data?.choices[0]!.message.content, 'You said: hello openapi-fetch');
  assert.ok((plain.data?.usage?.total_tokens ?? 0) > 0);

  bed.scriptToolTurn();
  const tooled = await client.POST(CHAT, {
    params,
    body: { model: MODEL, messages: [{ role: 'user', content: '2+2?' }] },
  });
  assert.equal(tooled.data?.choices[0]!.message.content, TOOL_ANSWER);
  bed.assertToolRan();
});

test('chat streamed (parseAs: stream): chunks, the progress event of a tool turn, [DONE]', async () => {
  bed.scriptToolTurn();
  const res = await client.POST(CHAT, {
    params: { path: { deploymentId: bed.id } },
    body: { model: MODEL, messages: [{ role: 'user', content: '2+2?' }], stream: true },
    parseAs: 'stream',
  });
  assert.equal(res.response.status, 200);
  assert.match(res.response.headers.get('content-type') ?? '', /^text\/event-stream/);
  // With parseAs: 'stream' the body is left unread for the caller (data is response.body).
  assert.ok(res.response.body);
  let text = '';
  const names: string[] = [];
  for await (const e of readSse(res.response.body)) {
    names.push(e.event ?? 'chunk');
    if (e.data !== '[DONE]') text += JSON.parse(e.data).choices[0]?.delta?.content ?? '';
  }
  assert.equal(text, TOOL_ANSWER);
  assert.ok(names.includes('assistant.tool.progress'));
  assert.equal(names.at(-1), 'chunk', 'ends with data: [DONE]');
  bed.assertToolRan();
});

test('sessions: the typed X-Assistant-Session-Id header keeps the history and comes back', async () => {
  const id = sessionId('openapi-fetch');
  const params = { path: { deploymentId: bed.id }, header: { 'X-Assistant-Session-Id': id } };
  await client.POST(CHAT, { params, body: { model: MODEL, messages: [{ role: 'user', content: 'my tea is green' }] } });
  const second = await client.POST(CHAT, {
    params,
    body: { model: MODEL, messages: [{ role: 'user', content: 'which tea?' }] },
  });
  assert.equal(second.response.headers.get('x-assistant-session-id'), id);
  assert.ok(bed.lastUpstreamContents().includes('my tea is green'), 'the session continued');
});

test('errors are typed envelopes: wrong key 401, stopped 409 in one request, bad model and empty messages 400', async () => {
  const wrong = createClient<paths>({ baseUrl: bed.e.url, headers: { 'X-API-Key': WRONG_KEY } });
  const denied = await wrong.GET('/api/v1/assistants');
  assert.equal(denied.response.status, 401);
  assert.equal(denied.error?.error.code, 'UNAUTHORIZED');
  const deniedChat = await wrong.POST(CHAT, {
    params: { path: { deploymentId: bed.id } },
    body: { model: MODEL, messages: [{ role: 'user', content: 'hi' }] },
  });
  assert.equal(deniedChat.error?.error.code, 'UNAUTHORIZED');

  const calls = bed.chatCallCounter(bed.stoppedId);
  const stopped = await client.POST(CHAT, {
    params: { path: { deploymentId: bed.stoppedId } },
    body: { model: MODEL, messages: [{ role: 'user', content: 'hi' }] },
  });
  assert.equal(stopped.response.status, 409);
  assert.equal(stopped.error?.error.code, 'ASSISTANT_NOT_READY');
  assert.equal(calls.count(), 1);

  const params = { path: { deploymentId: bed.id } };
  // The generated type knows the one model name: another does not compile, and the server agrees.
  const badModel = await client.POST(CHAT, {
    params,
    // @ts-expect-error model is the literal "assistant-agent"
    body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
  });
  assert.equal(badModel.response.status, 400);
  assert.equal(badModel.error?.error.code, 'INVALID_REQUEST');
  assert.match(badModel.error?.error.message ?? '', /assistant-agent/);
  const empty = await client.POST(CHAT, { params, body: { model: MODEL, messages: [] } });
  assert.equal(empty.response.status, 400);
  assert.equal(empty.error?.error.code, 'INVALID_REQUEST');
});
