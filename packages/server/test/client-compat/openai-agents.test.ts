// Client compatibility, issue 65: the OpenAI Agents SDK (`@openai/agents`), which talks to the
// Responses API unless told otherwise. Its default model provider (OpenAIProvider) is pointed at the
// deployment with the base URL and key, as its documentation sets up any compatible server;
// nothing else is changed (Responses, not chat completions; the SDK's default model settings); the
// agent names the deployment's one model. (setDefaultOpenAIClient does the same with an `openai`
// client of the SDK's own major version, 7; this repository's tests use 6.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, OpenAIProvider, run, setDefaultModelProvider, setTracingDisabled } from '@openai/agents';
import { MODEL, setUpCompatBed, TOOL_ANSWER, type CompatBed } from '../helpers/client-compat.js';

let bed: CompatBed;
let agent: Agent;

setUpCompatBed((b) => {
  bed = b;
  // Traces would otherwise be sent to api.openai.com.
  setTracingDisabled(true);
  setDefaultModelProvider(new OpenAIProvider({ apiKey: bed.e.key, baseURL: bed.base }));
  agent = new Agent({ name: 'Berth', instructions: 'You are a helpful assistant.', model: MODEL });
});

const responseCalls = () => {
  const from = bed.e.logs.length;
  return () =>
    bed.e.logs.slice(from).filter((l) => l.includes('"incoming request"') && l.includes(`${bed.id}/responses`)).length;
};

test('run(agent, input): the final output, through /responses, with the instructions', async () => {
  const calls = responseCalls();
  const result = await run(agent, 'hello agents');
  assert.equal(result.finalOutput, 'You said: hello agents');
  assert.equal(calls(), 1, 'one Responses call');
  assert.ok(bed.lastUpstreamContents().some((c) => c.includes('You are a helpful assistant.')));
  assert.match(result.lastResponseId ?? '', /^resp_/);
});

test('run with stream: true: text deltas, then the final output', async () => {
  const result = await run(agent, 'stream agents', { stream: true });
  let text = '';
  for await (const event of result.toTextStream()) text += event;
  await result.completed;
  assert.equal(text, 'You said: stream agents');
  assert.equal(result.finalOutput, 'You said: stream agents');
});

test('a second turn from the first run history: the model sees the conversation', async () => {
  const first = await run(agent, 'my name is Ada');
  const second = await run(agent, [...first.history, { role: 'user', content: 'what is my name?' }]);
  assert.equal(second.finalOutput, 'You said: what is my name?');
  const contents = bed.lastUpstreamContents();
  assert.ok(contents.includes('my name is Ada'), JSON.stringify(contents));
  assert.ok(contents.includes('You said: my name is Ada'));
});

test('a second turn with previousResponseId: continued on the server', async () => {
  const first = await run(agent, 'remember the word heron');
  const second = await run(agent, 'which word?', { previousResponseId: first.lastResponseId });
  assert.equal(second.finalOutput, 'You said: which word?');
  assert.ok(bed.lastUpstreamContents().includes('remember the word heron'));
});

test('a turn where the assistant runs its own tool: the agent gets the answer', async () => {
  bed.scriptToolTurn();
  const result = await run(agent, '2+2?');
  assert.equal(result.finalOutput, TOOL_ANSWER);
  bed.assertToolRan();
});
