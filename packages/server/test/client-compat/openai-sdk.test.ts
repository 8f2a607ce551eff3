// Client compatibility: the official `openai` Node SDK as its README uses it, pointed at a
// deployment's base URL, against the real control plane, agent host and fake provider.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { MODEL_KEY } from '../helpers/e2e.js';
import { MODEL, sessionId, setUpCompatBed, TOOL_ANSWER, WRONG_KEY, type CompatBed } from '../helpers/client-compat.js';

let bed: CompatBed;
let client: OpenAI;

setUpCompatBed((b) => {
  bed = b;
  // The SDK's defaults (two retries included): what a user who copies the README gets.
  client = new OpenAI({ apiKey: bed.e.key, baseURL: bed.base });
});

test('models.list names the one model a deployment answers to', async () => {
  const models = await client.models.list();
  assert.deepEqual(
    models.data.map((m) => m.id),
    [MODEL],
  );
});

test('create: the completion, usage, and the parameters reach the provider', async () => {
  const res = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'hello berth' }],
    temperature: 0.2,
  });
  assert.equal(res.choices[0]!.message.content, 'You said: hello berth');
  assert.equal(res.model, MODEL);
  assert.ok(res.usage && res.usage.total_tokens > 0, 'usage is reported');
  const upstream = bed.e.provider.requests.at(-1)!;
  assert.equal(upstream.body.model, 'fake-model-1');
  assert.equal(upstream.body.temperature, 0.2);
  assert.equal(upstream.headers.authorization, `Bearer ${MODEL_KEY}`);
});

test('create with a tool call: the answer after the tool round', async () => {
  bed.scriptToolTurn();
  const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: '2+2?' }] });
  assert.equal(res.choices[0]!.message.content, TOOL_ANSWER);
  assert.equal(res.choices[0]!.finish_reason, 'stop');
  bed.assertToolRan();
});

test('the README loop over stream: true', async () => {
  const stream = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'stream through the proxy' }],
    stream: true,
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  assert.equal(text, 'You said: stream through the proxy');
});

test('the README loop over a tool turn: the progress event is an empty chunk, the text is whole', async () => {
  bed.scriptToolTurn();
  const stream = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: '2+2?' }],
    stream: true,
  });
  let text = '';
  const progress: unknown[] = [];
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    // The SDK ignores the event name and hands the data over as a chunk, extra fields included.
    if ('tool' in chunk) progress.push(chunk);
  }
  assert.equal(text, TOOL_ANSWER);
  assert.equal(progress.length, 1);
  assert.deepEqual(
    (progress[0] as { choices: unknown }).choices,
    [{ index: 0, delta: {}, finish_reason: null }],
    'a stock client reads it as a chunk that adds nothing',
  );
  assert.equal((progress[0] as { tool: string }).tool, 'calculator');
  bed.assertToolRan();
});

test('the .stream() helper: content events and finalChatCompletion, with and without a tool', async () => {
  const plain = client.chat.completions.stream({ model: MODEL, messages: [{ role: 'user', content: 'helper' }] });
  let deltas = '';
  plain.on('content', (delta) => {
    deltas += delta;
  });
  const done = await plain.finalChatCompletion();
  assert.equal(done.choices[0]!.message.content, 'You said: helper');
  assert.equal(deltas, 'You said: helper');

  bed.scriptToolTurn();
  const tooled = client.chat.completions.stream({ model: MODEL, messages: [{ role: 'user', content: '2+2?' }] });
  const final = await tooled.finalChatCompletion();
  assert.equal(final.choices[0]!.message.content, TOOL_ANSWER);
  assert.equal(final.choices[0]!.finish_reason, 'stop');
  assert.equal(await tooled.finalContent(), TOOL_ANSWER);
  bed.assertToolRan();
});

test('sessions: X-Assistant-Session-Id keeps the history, and withResponse() reads it back', async () => {
  const session = { headers: { 'X-Assistant-Session-Id': sessionId('openai') } };
  await client.chat.completions.create(
    { model: MODEL, messages: [{ role: 'user', content: 'my colour is teal' }] },
    session,
  );
  const { data, response } = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: 'which colour?' }] }, session)
    .withResponse();
  assert.equal(data.choices[0]!.message.content, 'You said: which colour?');
  assert.equal(response.headers.get('x-assistant-session-id'), session.headers['X-Assistant-Session-Id']);
  assert.ok(bed.lastUpstreamContents().includes('my colour is teal'), 'the session continued');

  // A streamed call in the same session sees the history too, and its headers carry the id.
  const { data: stream, response: streamed } = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: 'and now?' }], stream: true }, session)
    .withResponse();
  for await (const _ of stream);
  assert.equal(streamed.headers.get('x-assistant-session-id'), session.headers['X-Assistant-Session-Id']);
  assert.ok(bed.lastUpstreamContents().includes('which colour?'));
});

test('a wrong key is an AuthenticationError (401 UNAUTHORIZED)', async () => {
  const wrong = new OpenAI({ apiKey: WRONG_KEY, baseURL: bed.base });
  await assert.rejects(
    wrong.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    (err: unknown) => err instanceof OpenAI.AuthenticationError && err.status === 401 && err.code === 'UNAUTHORIZED',
  );
});

test('a stopped deployment is one 409 ASSISTANT_NOT_READY: the SDK does not retry it', async () => {
  const stopped = new OpenAI({ apiKey: bed.e.key, baseURL: bed.stoppedBase, maxRetries: 3 });
  const calls = bed.chatCallCounter(bed.stoppedId);
  for (const stream of [false, true]) {
    calls.mark();
    await assert.rejects(
      stopped.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream }),
      (err: unknown) => err instanceof OpenAI.ConflictError && err.status === 409 && err.code === 'ASSISTANT_NOT_READY',
    );
    assert.equal(calls.count(), 1, `stream: ${stream}: the SDK retried what waiting cannot fix`);
  }
});

test('a model other than assistant-agent, and empty messages, are BadRequestErrors (400)', async () => {
  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    (err: unknown) =>
      err instanceof OpenAI.BadRequestError && err.code === 'INVALID_REQUEST' && /assistant-agent/.test(err.message),
  );
  await assert.rejects(
    client.chat.completions.create({ model: MODEL, messages: [] }),
    (err: unknown) => err instanceof OpenAI.BadRequestError && err.code === 'INVALID_REQUEST',
  );
});
