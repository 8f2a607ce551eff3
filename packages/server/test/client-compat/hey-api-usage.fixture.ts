// Code a user writes against the client @hey-api/openapi-ts generates from the live OpenAPI
// document. hey-api.test.ts generates that client into a temporary directory at test time, copies
// this file beside it (as usage.ts, the client in ./generated/), type-checks both with tsc, and
// then runs these functions. The API key is given once, in the client's config.
// (Excluded from the repository's own type-check: ./generated/ exists only in that directory.)
import assert from 'node:assert/strict';
import { createClient } from './generated/client/index.js';
import {
  createChatCompletion,
  getAssistant,
  getAssistantStatus,
  listAssistantModels,
  listAssistants,
  purchaseAssistantSlot,
} from './generated/index.js';

export interface Bed {
  url: string;
  key: string;
  wrongKey: string;
  id: string;
  stoppedId: string;
  /** The next turn calls the calculator tool; the answer is then `toolAnswer`. */
  scriptToolTurn(): void;
  toolAnswer: string;
  /** The chat requests the control plane received for the stopped deployment since the last call. */
  stoppedChatCalls(): number;
  lastUpstreamContents(): string[];
}

// Non-widening, so `{ model: MODEL }` in a variable keeps the literal type the client demands.
const MODEL = 'assistant-agent' as const;

export async function assistants(bed: Bed) {
  const client = createClient({ baseUrl: bed.url, auth: bed.key });
  const list = await listAssistants({ client });
  assert.equal(list.response.status, 200);
  assert.ok(list.data?.data.some((d) => d.id === bed.id));

  const path = { deploymentId: bed.id };
  const one = await getAssistant({ client, path, throwOnError: true });
  assert.equal(one.data.data.status, 'active');
  const status = await getAssistantStatus({ client, path, throwOnError: true });
  assert.equal(status.data.data.status, 'active');
  const models = await listAssistantModels({ client, path, throwOnError: true });
  assert.deepEqual(
    models.data.data.map((m) => m.id),
    [MODEL],
  );

  const bought = await purchaseAssistantSlot({ client, body: { apiMode: 'byok' }, throwOnError: true });
  assert.equal(bought.response.status, 201);
  assert.match(bought.data.data.checkoutUrl, /^http/);
}

export async function chat(bed: Bed) {
  const client = createClient({ baseUrl: bed.url, auth: bed.key });
  const path = { deploymentId: bed.id };
  const plain = await createChatCompletion({
    client,
    path,
    body: { model: MODEL, messages: [{ role: 'user', content: 'hello hey-api' }] },
    throwOnError: true,
  });
  assert.equal(plain.data.choices[0]!.message.content, 'You said: hello hey-api');
  assert.ok((plain.data.usage?.total_tokens ?? 0) > 0);

  bed.scriptToolTurn();
  const tooled = await createChatCompletion({
    client,
    path,
    body: { model: MODEL, messages: [{ role: 'user', content: '2+2?' }] },
    throwOnError: true,
  });
  assert.equal(tooled.data.choices[0]!.message.content, bed.toolAnswer);
}

/** The generated client's own SSE reader over a tool turn: every data line is a chunk or [DONE]. */
export async function chatStreamed(bed: Bed) {
  const client = createClient({ baseUrl: bed.url, auth: bed.key });
  bed.scriptToolTurn();
  const events: Array<{ event?: string; data: unknown }> = [];
  const { stream } = await client.sse.post({
    url: '/api/v1/assistants/{deploymentId}/chat/completions',
    path: { deploymentId: bed.id },
    body: { model: MODEL, messages: [{ role: 'user', content: '2+2?' }], stream: true },
    headers: { 'Content-Type': 'application/json' },
    security: [{ name: 'X-API-Key', type: 'apiKey' }],
    sseMaxRetryAttempts: 1,
    onSseEvent: (e) => events.push({ event: e.event, data: e.data }),
  });
  for await (const _ of stream);
  const text = events
    .filter((e) => e.event === undefined && typeof e.data === 'object')
    .map((e) => (e.data as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
    .join('');
  assert.equal(text, bed.toolAnswer);
  assert.ok(events.some((e) => e.event === 'assistant.tool.progress'));
  assert.equal(events.at(-1)?.data, '[DONE]');
}

export async function session(bed: Bed, id: string) {
  const client = createClient({ baseUrl: bed.url, auth: bed.key });
  const call = (content: string) =>
    createChatCompletion({
      client,
      path: { deploymentId: bed.id },
      headers: { 'X-Assistant-Session-Id': id },
      body: { model: MODEL, messages: [{ role: 'user', content }] },
      throwOnError: true,
    });
  await call('my boat is red');
  const second = await call('which boat?');
  assert.equal(second.response.headers.get('x-assistant-session-id'), id);
  assert.ok(bed.lastUpstreamContents().includes('my boat is red'), 'the session continued');
}

export async function errors(bed: Bed) {
  const wrong = createClient({ baseUrl: bed.url, auth: bed.wrongKey });
  const denied = await listAssistants({ client: wrong });
  assert.equal(denied.response.status, 401);
  assert.equal(denied.error?.error.code, 'UNAUTHORIZED');

  const client = createClient({ baseUrl: bed.url, auth: bed.key });
  const body = { model: MODEL, messages: [{ role: 'user' as const, content: 'hi' }] };
  bed.stoppedChatCalls();
  const stopped = await createChatCompletion({ client, path: { deploymentId: bed.stoppedId }, body });
  assert.equal(stopped.response.status, 409);
  assert.equal(stopped.error?.error.code, 'ASSISTANT_NOT_READY');
  assert.equal(bed.stoppedChatCalls(), 1);

  const path = { deploymentId: bed.id };
  // @ts-expect-error the generated type knows the one model name
  const badModel = await createChatCompletion({ client, path, body: { ...body, model: 'gpt-4o' } });
  assert.equal(badModel.response.status, 400);
  assert.equal(badModel.error?.error.code, 'INVALID_REQUEST');
  const empty = await createChatCompletion({ client, path, body: { model: MODEL, messages: [] } });
  assert.equal(empty.response.status, 400);
  assert.equal(empty.error?.error.code, 'INVALID_REQUEST');

  await assert.rejects(
    createChatCompletion({ client, path, body: { model: MODEL, messages: [] }, throwOnError: true }),
  );
}
