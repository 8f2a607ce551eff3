// Client compatibility, issue 65: the Vercel AI SDK's default OpenAI provider. `openai(model)` from
// `@ai-sdk/openai` calls the Responses API (`POST <base>/responses`), so a developer who sets the
// deployment's base URL and key and changes nothing else lands there, not on chat completions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, streamText } from 'ai';
import { MODEL, setUpCompatBed, TOOL_ANSWER, type CompatBed } from '../helpers/client-compat.js';
import { assertToolTurnAnswered, drainWithoutError } from '../helpers/vercel-ai.js';

let bed: CompatBed;
let openai: ReturnType<typeof createOpenAI>;

setUpCompatBed((b) => {
  bed = b;
  openai = createOpenAI({ baseURL: bed.base, apiKey: bed.e.key });
});

test('generateText with openai(model): answered through /responses, with usage', async () => {
  const calls = bed.e.logs.length;
  const res = await generateText({ model: openai(MODEL), prompt: 'hello responses' });
  assert.equal(res.text, 'You said: hello responses');
  assert.equal(res.finishReason, 'stop');
  assert.ok((res.usage.totalTokens ?? 0) > 0, 'usage is reported');
  assert.match(res.response.id, /^resp_/);
  assert.ok(
    bed.e.logs.slice(calls).some((l) => l.includes('"incoming request"') && l.includes(`${bed.id}/responses`)),
    'the default provider called the Responses API',
  );
});

test('generateText with a system prompt and history: the model sees them all', async () => {
  const res = await generateText({
    model: openai(MODEL),
    system: 'Answer briefly.',
    messages: [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second question' },
    ],
  });
  assert.equal(res.text, 'You said: second question');
  const contents = bed.lastUpstreamContents();
  for (const turn of ['Answer briefly.', 'first question', 'first answer', 'second question'])
    assert.ok(
      contents.some((c) => c.includes(turn)),
      turn,
    );
});

test('a turn where the assistant runs its own tool: the SDK sees only the answer', () =>
  assertToolTurnAnswered(bed, openai(MODEL)));

test('streamText with openai(model): the text, no error part, a stop', async () => {
  const result = streamText({ model: openai(MODEL), prompt: 'stream the responses' });
  const parts = await drainWithoutError(result);
  assert.ok(parts.filter((p) => p.type === 'text-delta').length > 1, 'the text came in pieces');
  assert.equal(await result.text, 'You said: stream the responses');
  assert.equal(await result.finishReason, 'stop');
  assert.ok(((await result.usage).totalTokens ?? 0) > 0);
});

test('streamText over a tool turn: no error part, the text whole', async () => {
  bed.scriptToolTurn();
  const result = streamText({ model: openai(MODEL), prompt: '2+2?' });
  await drainWithoutError(result);
  assert.equal(await result.text, TOOL_ANSWER);
});

test('a stopped assistant: the SDK gets the 409 with the envelope message', async () => {
  const stopped = createOpenAI({ baseURL: bed.stoppedBase, apiKey: bed.e.key });
  await assert.rejects(generateText({ model: stopped(MODEL), prompt: 'hi', maxRetries: 0 }), (err: unknown) => {
    assert.ok(APICallError.isInstance(err), String(err));
    assert.equal(err.statusCode, 409);
    assert.match(err.message, /not ready|stopped/i);
    return true;
  });
});
