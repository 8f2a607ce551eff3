// Client compatibility: LangChain JS's ChatOpenAI (`@langchain/openai`) with configuration.baseURL
// set to the deployment's base URL, invoked and streamed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatOpenAI } from '@langchain/openai';
import { type AIMessageChunk, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { MODEL, sessionId, setUpCompatBed, TOOL_ANSWER, WRONG_KEY, type CompatBed } from '../helpers/client-compat.js';

let bed: CompatBed;

function chat(opts: { base?: string; apiKey?: string; model?: string; headers?: Record<string, string> } = {}) {
  return new ChatOpenAI({
    model: opts.model ?? MODEL,
    apiKey: opts.apiKey ?? bed.e.key,
    configuration: { baseURL: opts.base ?? bed.base, defaultHeaders: opts.headers },
  });
}

/** The whole streamed answer, as LangChain's docs add the chunks up. */
async function streamed(model: ChatOpenAI, input: Parameters<ChatOpenAI['stream']>[0]) {
  let whole: AIMessageChunk | undefined;
  for await (const chunk of await model.stream(input)) whole = whole ? whole.concat(chunk) : chunk;
  assert.ok(whole, 'no chunk at all');
  return whole;
}

setUpCompatBed((b) => {
  bed = b;
});

test('invoke: the answer, with usage', async () => {
  const res = await chat().invoke([new SystemMessage('Be brief.'), new HumanMessage('hello langchain')]);
  assert.equal(res.content, 'You said: hello langchain');
  assert.ok((res.usage_metadata?.total_tokens ?? 0) > 0, 'usage is reported');
  const sent: Array<{ role: string; content: string }> = bed.e.provider.requests.at(-1)!.body.messages;
  assert.ok(
    sent.some((m) => m.role === 'system' && m.content === 'Be brief.'),
    "the caller's system message reaches the model",
  );
  assert.deepEqual(sent.at(-1), { role: 'user', content: 'hello langchain' });
});

test('invoke with a tool call: the answer after the tool round', async () => {
  bed.scriptToolTurn();
  const res = await chat().invoke('2+2?');
  assert.equal(res.content, TOOL_ANSWER);
  bed.assertToolRan();
});

test('stream: the chunks add up to the answer', async () => {
  const whole = await streamed(chat(), 'stream langchain');
  assert.equal(whole.content, 'You said: stream langchain');
});

test('stream over a tool turn: the progress event adds nothing, the text is whole', async () => {
  bed.scriptToolTurn();
  const whole = await streamed(chat(), '2+2?');
  assert.equal(whole.content, TOOL_ANSWER);
  assert.deepEqual(whole.tool_calls, [], 'the progress event is not mistaken for a tool call');
  bed.assertToolRan();
});

test('sessions: X-Assistant-Session-Id in defaultHeaders keeps the history', async () => {
  const model = chat({ headers: { 'X-Assistant-Session-Id': sessionId('langchain') } });
  await model.invoke('my city is Porto');
  const res = await model.invoke('which city?');
  assert.equal(res.content, 'You said: which city?');
  assert.ok(bed.lastUpstreamContents().includes('my city is Porto'), 'the session continued');
  await streamed(model, 'and streamed?');
  assert.ok(bed.lastUpstreamContents().includes('which city?'));
});

/** LangChain passes the OpenAI SDK's error through, marked with its own error code. */
function apiError(status: number, code: string, lcCode?: string) {
  return (err: unknown) => {
    const e = err as { status?: number; code?: string; lc_error_code?: string };
    assert.equal(e.status, status, String(err));
    assert.equal(e.code, code, String(err));
    if (lcCode) assert.equal(e.lc_error_code, lcCode);
    return true;
  };
}

test('a wrong key is a 401 UNAUTHORIZED error (MODEL_AUTHENTICATION), invoked or streamed', async () => {
  await assert.rejects(chat({ apiKey: WRONG_KEY }).invoke('hi'), apiError(401, 'UNAUTHORIZED', 'MODEL_AUTHENTICATION'));
  await assert.rejects(streamed(chat({ apiKey: WRONG_KEY }), 'hi'), apiError(401, 'UNAUTHORIZED'));
});

test('a stopped deployment is one 409 ASSISTANT_NOT_READY: LangChain does not retry it', async () => {
  const calls = bed.chatCallCounter(bed.stoppedId);
  await assert.rejects(chat({ base: bed.stoppedBase }).invoke('hi'), apiError(409, 'ASSISTANT_NOT_READY'));
  assert.equal(calls.count(), 1);
  calls.mark();
  await assert.rejects(streamed(chat({ base: bed.stoppedBase }), 'hi'), apiError(409, 'ASSISTANT_NOT_READY'));
  assert.equal(calls.count(), 1);
});

test('a model other than assistant-agent, and empty messages, are 400 INVALID_REQUEST', async () => {
  await assert.rejects(chat({ model: 'gpt-4o' }).invoke('hi'), apiError(400, 'INVALID_REQUEST'));
  await assert.rejects(chat().invoke([]), apiError(400, 'INVALID_REQUEST'));
});
