// Client compatibility: the Vercel AI SDK (`ai`) through `@ai-sdk/openai-compatible`, with the
// deployment's base URL and the API key, as its documentation sets up any OpenAI-compatible server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, InvalidPromptError, RetryError, streamText } from 'ai';
import { MODEL, sessionId, setUpCompatBed, TOOL_ANSWER, WRONG_KEY, type CompatBed } from '../helpers/client-compat.js';
import { assertToolTurnAnswered, drain, drainWithoutError } from '../helpers/vercel-ai.js';

let bed: CompatBed;
let berth: ReturnType<typeof createOpenAICompatible>;

setUpCompatBed((b) => {
  bed = b;
  berth = createOpenAICompatible({ name: 'berth', baseURL: bed.base, apiKey: bed.e.key });
});

test('generateText: the answer and its usage', async () => {
  const res = await generateText({ model: berth(MODEL), prompt: 'hello vercel' });
  assert.equal(res.text, 'You said: hello vercel');
  assert.equal(res.finishReason, 'stop');
  assert.ok((res.usage.totalTokens ?? 0) > 0, 'usage is reported');
});

test('generateText with a tool call: the answer after the tool round', () => assertToolTurnAnswered(bed, berth(MODEL)));

test('streamText: the text, and no error part', async () => {
  const result = streamText({ model: berth(MODEL), prompt: 'stream vercel' });
  await drainWithoutError(result);
  assert.equal(await result.text, 'You said: stream vercel');
  assert.equal(await result.finishReason, 'stop');
});

test('streamText over a tool turn: the progress event passes as a chunk, no error part, the text whole', async () => {
  bed.scriptToolTurn();
  // includeRawChunks only adds `raw` parts: it lets the test see the progress event went by.
  const result = streamText({ model: berth(MODEL), prompt: '2+2?', includeRawChunks: true });
  const parts = await drainWithoutError(result, 'a tool-progress event broke the stream');
  const progress = parts.filter((p) => p.type === 'raw' && (p.rawValue as { tool?: string }).tool === 'calculator');
  assert.equal(progress.length, 1, 'the tool-progress event reached the SDK');
  assert.equal(await result.text, TOOL_ANSWER);
  assert.equal(await result.finishReason, 'stop');
  bed.assertToolRan();

  // textStream, the loop the SDK's README shows, reads the same.
  bed.scriptToolTurn();
  let text = '';
  for await (const delta of streamText({ model: berth(MODEL), prompt: '2+2 again?' }).textStream) text += delta;
  assert.equal(text, TOOL_ANSWER);
});

test('sessions: per-call headers keep the history; response.headers has the id back', async () => {
  const headers = { 'X-Assistant-Session-Id': sessionId('vercel') };
  await generateText({ model: berth(MODEL), prompt: 'my pet is a heron', headers });
  const second = await generateText({ model: berth(MODEL), prompt: 'which pet?', headers });
  assert.equal(second.response.headers?.['x-assistant-session-id'], headers['X-Assistant-Session-Id']);
  assert.ok(bed.lastUpstreamContents().includes('my pet is a heron'), 'the session continued');

  const streamed = streamText({ model: berth(MODEL), prompt: 'and streamed?', headers });
  await drain(streamed);
  assert.equal((await streamed.response).headers?.['x-assistant-session-id'], headers['X-Assistant-Session-Id']);
  assert.ok(bed.lastUpstreamContents().includes('which pet?'));
});

test('a wrong key is an APICallError 401 UNAUTHORIZED, not retried', async () => {
  const wrong = createOpenAICompatible({ name: 'berth', baseURL: bed.base, apiKey: WRONG_KEY });
  await assert.rejects(
    generateText({ model: wrong(MODEL), prompt: 'hi' }),
    (err: unknown) =>
      APICallError.isInstance(err) &&
      err.statusCode === 401 &&
      !err.isRetryable &&
      JSON.parse(err.responseBody!).error.code === 'UNAUTHORIZED',
  );
  const parts = await drain(streamText({ model: wrong(MODEL), prompt: 'hi', onError: () => {} }));
  const errors = parts.filter((p) => p.type === 'error');
  assert.equal(errors.length, 1);
  assert.ok(APICallError.isInstance(errors[0]!.error) && errors[0]!.error.statusCode === 401);
});

test('a stopped deployment is a 409 ASSISTANT_NOT_READY; with maxRetries: 0, exactly one request', async () => {
  const stopped = createOpenAICompatible({ name: 'berth', baseURL: bed.stoppedBase, apiKey: bed.e.key });
  const calls = bed.chatCallCounter(bed.stoppedId);
  await assert.rejects(
    generateText({ model: stopped(MODEL), prompt: 'hi', maxRetries: 0 }),
    (err: unknown) =>
      APICallError.isInstance(err) &&
      err.statusCode === 409 &&
      JSON.parse(err.responseBody!).error.code === 'ASSISTANT_NOT_READY' &&
      err.responseHeaders?.['x-should-retry'] === 'false',
  );
  assert.equal(calls.count(), 1);
});

// The AI SDK decides by status alone (408, 409, 429 and 5xx are retryable; it reads no
// x-should-retry), so no answer of the server can stop its default two retries of a 409: this
// pins what a user with the defaults sees (docs/decisions/0018), about 6 s of backoff.
test('with the AI SDK defaults, a stopped deployment is still a 409 ASSISTANT_NOT_READY, after 2 retries', async () => {
  const stopped = createOpenAICompatible({ name: 'berth', baseURL: bed.stoppedBase, apiKey: bed.e.key });
  const calls = bed.chatCallCounter(bed.stoppedId);
  await assert.rejects(
    generateText({ model: stopped(MODEL), prompt: 'hi' }),
    (err: unknown) =>
      RetryError.isInstance(err) &&
      err.errors.every(
        (e) =>
          APICallError.isInstance(e) &&
          e.statusCode === 409 &&
          JSON.parse(e.responseBody!).error.code === 'ASSISTANT_NOT_READY',
      ),
  );
  assert.equal(calls.count(), 3);
});

test('a model other than assistant-agent is an APICallError 400; empty messages never leave the SDK', async () => {
  await assert.rejects(
    generateText({ model: berth('gpt-4o'), prompt: 'hi' }),
    (err: unknown) =>
      APICallError.isInstance(err) &&
      err.statusCode === 400 &&
      JSON.parse(err.responseBody!).error.code === 'INVALID_REQUEST' &&
      /assistant-agent/.test(err.message),
  );
  // The SDK refuses an empty prompt itself, before any request.
  const calls = bed.chatCallCounter(bed.id);
  await assert.rejects(generateText({ model: berth(MODEL), messages: [] }), (err: unknown) =>
    InvalidPromptError.isInstance(err),
  );
  assert.equal(calls.count(), 0);
});
