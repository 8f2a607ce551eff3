// The agent's OpenAI-compatible API, driven by the official openai SDK over loopback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { request } from 'undici';
import { FakeModelProvider } from '@berth/testkit';
import { startServe, GATEWAY, MODEL_KEY, postChat, fakeModel } from './helpers/serve.js';
import { openAiClient, streamedText } from './helpers/openai.js';
import { apiSession } from '../src/storage/sessions.js';

let provider: FakeModelProvider;
let s: Awaited<ReturnType<typeof startServe>>;
let client: OpenAI;
before(async () => {
  provider = await new FakeModelProvider().start();
  s = await startServe({ provider });
  client = openAiClient(s.url);
});
after(async () => {
  await s.close();
  await provider.stop();
});

const raw = async (body: unknown, headers: Record<string, string> = {}) => {
  const res = await request(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
};

test('non-streaming: the answer in the OpenAI shape, model replaced, parameters passed through', async () => {
  const res = await client.chat.completions.create({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'hello there' }],
    temperature: 0.3,
    top_p: 0.9,
    max_tokens: 50,
    stop: ['\n\n'],
    seed: 7,
  });
  assert.equal(res.object, 'chat.completion');
  assert.equal(res.model, 'assistant-agent');
  assert.equal(res.choices[0]!.message.content, 'You said: hello there');
  assert.equal(res.choices[0]!.finish_reason, 'stop');
  assert.equal(typeof res.created, 'number');
  assert.equal(res.usage?.total_tokens, 18);
  const sent = provider.requests.at(-1)!;
  assert.equal(sent.body.model, 'fake-model-1');
  assert.equal(sent.headers.authorization, `Bearer ${MODEL_KEY}`);
  for (const [k, v] of Object.entries({ temperature: 0.3, top_p: 0.9, max_tokens: 50, stop: ['\n\n'], seed: 7 }))
    assert.deepEqual(sent.body[k], v, k);
  assert.equal(sent.body.messages[0].role, 'system', "the assistant's own system prompt comes first");
  // time, calculator, fetch_web_page and send_file (DESIGN §9.5: a text file costs no provider call).
  assert.deepEqual(
    sent.body.tools.map((t: any) => t.function.name),
    ['current_datetime', 'calculator', 'fetch_web_page', 'send_file'],
  );
});

test('streaming: chunks, a final chunk with finish_reason and usage, and [DONE]', async () => {
  const stream = await client.chat.completions.create({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'stream me please' }],
    stream: true,
  });
  let text = '';
  let last: any;
  for await (const chunk of stream) {
    assert.equal(chunk.object, 'chat.completion.chunk');
    text += chunk.choices[0]?.delta?.content ?? '';
    last = chunk;
  }
  assert.equal(text, 'You said: stream me please');
  assert.equal(last.choices[0].finish_reason, 'stop');
  assert.equal(last.usage.total_tokens, 18);
  const r = await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }], stream: true });
  assert.match(r.headers['content-type'] as string, /^text\/event-stream/);
  assert.ok(r.text.trimEnd().endsWith('data: [DONE]'));
});

test('tools: progress events in the stream, the result goes back to the model, only the final answer returns', async () => {
  provider.queue.push(
    { toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] },
    { content: 'The answer is 42.' },
  );
  const r = await raw({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'what is 6 times 7?' }],
    stream: true,
  });
  const progress = /event: assistant\.tool\.progress\ndata: (.*)\n/.exec(r.text);
  assert.ok(progress, r.text);
  const data = JSON.parse(progress[1]!);
  assert.deepEqual(
    { tool: data.tool, emoji: data.emoji, label: data.label },
    { tool: 'calculator', emoji: '🧮', label: 'Calculating 6*7' },
  );
  // ...and a valid empty chunk, so SDKs that ignore event names read it as one.
  assert.deepEqual(
    { object: data.object, model: data.model, choices: data.choices },
    {
      object: 'chat.completion.chunk',
      model: 'assistant-agent',
      choices: [{ index: 0, delta: {}, finish_reason: null }],
    },
  );
  assert.equal(typeof data.id, 'string');
  assert.equal(typeof data.created, 'number');
  const toolResult = provider.requests.at(-1)!.body.messages.find((m: any) => m.role === 'tool');
  assert.equal(JSON.parse(toolResult.content).result, 42);
  assert.ok(r.text.includes('The answer is 42.') || r.text.includes('42.'));

  provider.queue.push(
    { toolCalls: [{ name: 'current_datetime', arguments: { timezone: 'Asia/Tokyo' } }] },
    { content: 'It is morning in Tokyo.' },
  );
  const res = await client.chat.completions.create({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'time in tokyo?' }],
  });
  assert.equal(res.choices[0]!.message.content, 'It is morning in Tokyo.');
  const tz = provider.requests.at(-1)!.body.messages.find((m: any) => m.role === 'tool');
  assert.equal(JSON.parse(tz.content).timezone, 'Asia/Tokyo');
});

test('the OpenAI SDK README loop and .stream() helper survive a tool-calling turn', async () => {
  provider.queue.push(
    { toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] },
    { content: 'It is 42.' },
  );
  assert.equal(await streamedText(client, '6*7?'), 'It is 42.');
  provider.queue.push({ toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] }, { content: 'Two.' });
  const helper = client.chat.completions.stream({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: '1+1?' }],
  });
  const final = await helper.finalChatCompletion();
  assert.equal(final.choices[0]!.message.content, 'Two.');
});

test('content as text parts and the developer role are accepted; other part types are refused by name', async () => {
  const res = await raw({
    model: 'assistant-agent',
    messages: [
      { role: 'developer', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hello' },
          { type: 'text', text: 'there' },
        ],
      },
    ],
  });
  assert.equal(res.status, 200, res.text);
  const sent = provider.requests.at(-1)!.body.messages;
  assert.ok(
    sent.some((m: any) => m.role === 'system' && m.content.includes('Be brief.')),
    JSON.stringify(sent),
  );
  assert.ok(
    sent.some((m: any) => m.role === 'user' && m.content === 'hello\nthere'),
    JSON.stringify(sent),
  );
  const img = await raw({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
  });
  assert.equal(img.status, 400);
  assert.match(JSON.parse(img.text).error.message, /image_url part, but this assistant's model does not read images/);
  const file = await raw({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: 'x' } }] }],
  });
  assert.equal(file.status, 400);
  assert.match(JSON.parse(file.text).error.message, /part of type "file"; supported part types: text/);
});

test('a 5,000-deep extra parameter is a 400, not a crash', async () => {
  const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  const res = await raw(`{"model":"assistant-agent","messages":[{"role":"user","content":"x"}],"extra":${deep}}`);
  assert.equal(res.status, 400, res.text);
  assert.match(JSON.parse(res.text).error.message, /nests deeper than 32 levels/);
});

test('sessions: history kept server-side, only the new user turn taken, system layered per call, id echoed', async () => {
  const sid = `s-${Date.now()}`;
  const a = await raw(
    {
      model: 'assistant-agent',
      messages: [
        { role: 'system', content: 'Speak like a pirate.' },
        { role: 'user', content: 'first' },
      ],
    },
    { 'x-assistant-session-id': sid },
  );
  assert.equal(a.status, 200);
  assert.equal(a.headers['x-assistant-session-id'], sid);
  // The client resends an old turn; only the last user message counts.
  await raw(
    {
      model: 'assistant-agent',
      messages: [
        { role: 'user', content: 'ignored old' },
        { role: 'assistant', content: 'ignored' },
        { role: 'user', content: 'second' },
      ],
    },
    { 'x-assistant-session-id': sid },
  );
  const msgs = provider.requests.at(-1)!.body.messages.map((m: any) => `${m.role}:${m.content}`);
  // The clock (core/clock.ts) sits just before the newest user message; the rest is the history.
  assert.match(msgs.at(-2), /^system:Now: /);
  assert.deepEqual(
    msgs.slice(1).filter((m: string) => !m.startsWith('system:Now: ')),
    ['user:first', 'assistant:You said: first', 'user:second'],
  );
  assert.ok(!msgs.some((m: string) => m.includes('pirate')), 'system messages of an earlier call are not stored');
  assert.ok(!msgs.some((m: string) => m.includes('ignored')));
  // Without a session, calls are stateless.
  await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'alone' }] });
  assert.deepEqual(
    provider.requests
      .at(-1)!
      .body.messages.slice(1)
      .filter((m: any) => m.role !== 'system')
      .map((m: any) => m.content),
    ['alone'],
  );
});

test('two turns on one session at once are serialised, not interleaved', async () => {
  const sid = `c-${Date.now()}`;
  provider.queue.push({ content: 'slow first answer', chunkDelayMs: 60 }, { content: 'second answer' });
  const [one, two] = await Promise.all([
    raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'one' }] }, { 'x-assistant-session-id': sid }),
    raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'two' }] }, { 'x-assistant-session-id': sid }),
  ]);
  assert.equal(one.status, 200);
  assert.equal(two.status, 200);
  const second = provider.requests
    .at(-1)!
    .body.messages.slice(1)
    .filter((m: any) => m.role !== 'system')
    .map((m: any) => m.content);
  assert.deepEqual(second, ['one', 'slow first answer', 'two']);
});

test('auth: a missing or wrong gateway token is a 401 in the envelope', async () => {
  for (const authorization of [undefined, 'Bearer nope', `Basic ${GATEWAY}`]) {
    const res = await request(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: '{}',
    });
    assert.equal(res.statusCode, 401);
    assert.equal(((await res.body.json()) as any).error.code, 'UNAUTHORIZED');
  }
  const models = await client.models.list();
  assert.deepEqual(
    models.data.map((m) => m.id),
    ['assistant-agent'],
  );
});

test('bad bodies and bad session ids are 400s', async () => {
  for (const body of [
    '',
    'not json',
    {},
    { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] },
    { model: 'assistant-agent', messages: [] },
    { model: 'assistant-agent', messages: [{ role: 'tool', content: 'x' }] },
    { model: 'assistant-agent', messages: [{ role: 'user', content: 5 }] },
  ]) {
    const r = await raw(body);
    assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.text}`);
    assert.equal(JSON.parse(r.text).error.code, 'INVALID_REQUEST');
  }
  for (const sid of ['x'.repeat(257), 'bad\tid']) {
    const r = await raw(
      { model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }] },
      { 'x-assistant-session-id': sid },
    );
    assert.equal(r.status, 400, r.text);
    assert.match(JSON.parse(r.text).error.message, /X-Assistant-Session-Id/);
  }
  const sysOnly = await raw(
    { model: 'assistant-agent', messages: [{ role: 'system', content: 'x' }] },
    { 'x-assistant-session-id': 'abc' },
  );
  assert.equal(sysOnly.status, 400);
});

test('provider failures: clear messages naming the provider, never a stack trace', async () => {
  provider.apiKeys.delete(MODEL_KEY);
  try {
    const r = await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.status, 502);
    const e = JSON.parse(r.text).error;
    assert.equal(e.code, 'BAD_GATEWAY');
    assert.match(e.message, /fakeai rejected the API key \(401\): Incorrect API key provided/);
    // A stream starts at once (headers and role chunk), so a failure is an error event in the
    // envelope, which the OpenAI SDK raises as an APIError.
    const st = await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }], stream: true });
    assert.equal(st.status, 200);
    assert.match(
      st.text,
      /event: error\ndata: \{"error":\{"code":"BAD_GATEWAY","message":"The model provider fakeai rejected the API key/,
    );
    await assert.rejects(
      async () => {
        const stream = await client.chat.completions.create({
          model: 'assistant-agent',
          messages: [{ role: 'user', content: 'x' }],
          stream: true,
        });
        for await (const _ of stream) {
          /* drain */
        }
      },
      (err: Error) => err instanceof OpenAI.APIError && /rejected the API key/.test(err.message),
    );
  } finally {
    provider.apiKeys.add(MODEL_KEY);
  }
  provider.queue.push({ status: 500, error: { message: 'The server had an error' } });
  const r5 = await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }] });
  assert.equal(r5.status, 502);
  assert.match(JSON.parse(r5.text).error.message, /fakeai failed \(500\): The server had an error/);
  provider.queue.push({ status: 429, error: { message: 'Rate limit reached' } });
  assert.equal((await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }] })).status, 429);
  provider.queue.push({ status: 400, error: { message: "Invalid value for 'temperature'" } });
  const r4 = await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }], temperature: 9 });
  assert.equal(r4.status, 400);
  assert.match(JSON.parse(r4.text).error.message, /temperature/);
  provider.queue.push({ breakAfter: 'partial ' });
  const broken = await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }], stream: true });
  assert.match(broken.text, /event: error\ndata: \{"error":\{"code":"BAD_GATEWAY"/);
  for (const text of [r5.text, r4.text, broken.text]) assert.doesNotMatch(text, /\s+at\s+\S+\s+\(/);
});

test('a provider answer that is not a stream (HTML 200, a redirect) is a 502, never an empty success', async () => {
  const ask = () => raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }] });
  provider.queue.push({
    raw: { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>Sign in to the Wi-Fi</html>' },
  });
  const html = await ask();
  assert.equal(html.status, 502);
  assert.match(JSON.parse(html.text).error.message, /fakeai failed \(200\): answered text\/html, not a stream/);
  provider.queue.push({ raw: { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' }, body: '' } });
  const moved = await ask();
  assert.equal(moved.status, 502);
  assert.match(JSON.parse(moved.text).error.message, /fakeai failed \(302\): answered with a redirect/);
});

test('a tool call index far out of range is refused as a provider failure, not used as an array index', async () => {
  provider.queue.push({
    deltas: [
      { tool_calls: [{ index: 99_999_999, id: 'call_x', type: 'function', function: { name: 'x', arguments: '{}' } }] },
    ],
  });
  const r = await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }] });
  assert.equal(r.status, 502);
  assert.match(JSON.parse(r.text).error.message, /tool call index out of range \(99999999\)/);
  // The agent still answers the next request normally.
  assert.equal((await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'ok' }] })).status, 200);
});

test('a provider that does not answer in time is a 502 saying so', async () => {
  const slow = await startServe({ provider, providerTimeoutMs: 300 });
  try {
    provider.queue.push({ hang: true });
    const res = await request(`${slow.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY}` },
      body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.equal(res.statusCode, 502);
    assert.match(((await res.body.json()) as any).error.message, /did not answer in time/);
  } finally {
    await slow.close(true);
  }
});

test('a client that disconnects cancels the turn and the provider request', async () => {
  provider.queue.push({ content: 'word '.repeat(200), chunkDelayMs: 20 });
  const ac = new AbortController();
  const res = await request(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY}` },
    body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'long' }], stream: true }),
  });
  const rec = provider.requests.at(-1)!;
  for await (const _ of res.body) {
    ac.abort();
    break;
  }
  const deadline = Date.now() + 3000;
  while (!rec.aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.equal(rec.aborted, true, 'the provider saw the request cancelled');
});

test('idle streams carry keepalive comments', async () => {
  const k = await startServe({ provider, keepaliveMs: 100 });
  try {
    provider.queue.push({ content: 'a b c', chunkDelayMs: 350 });
    const res = await request(`${k.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY}` },
      body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }], stream: true }),
    });
    const text = await res.body.text();
    assert.match(text, /^: keepalive$/m);
    assert.ok(text.trimEnd().endsWith('data: [DONE]'));
  } finally {
    await k.close(true);
  }
});

test('history survives a restart; turns beyond its budget are folded into a summary', async () => {
  const first = await startServe({ provider, config: { historyBudgetChars: 1000 } });
  const sid = 'persist-1';
  const say = (url: string, content: string) => postChat(url, content, sid).then((r) => r.body.text());
  await say(first.url, 'remember the word heron');
  await first.close(true);
  const second = await startServe({ provider, dataDir: first.dataDir, config: { historyBudgetChars: 1000 } });
  try {
    await say(second.url, 'what was the word?');
    const contents = provider.requests.at(-1)!.body.messages.map((m: any) => m.content);
    assert.ok(contents.includes('remember the word heron'), 'history came back after the restart');
    for (let i = 0; i < 8; i++) await say(second.url, `filler ${i} ${'z'.repeat(200)}`);
    // The fold runs after the answer, inside the session's lock: the next turn sees it.
    await say(second.url, 'and now?');
    const stored = second.store.load('test-agent', apiSession(sid));
    const total = stored.reduce((n, m) => n + m.content.length, 0);
    assert.ok(total <= 1000, `history of ${total} chars is within the budget`);
    assert.match(stored.at(-1)!.content, /and now\?/, 'the newest turn is kept');
    assert.ok(!stored.some((m) => m.content.includes('heron')), 'the oldest turns left the verbatim history');
    // ... into a summary written by the same model (the fake echoes what it was asked to summarise).
    const summaryCall = provider.requests.find((r) =>
      r.body.messages[0]?.content?.startsWith('Summarise the conversation'),
    );
    assert.ok(summaryCall, 'one more model call made the summary');
    assert.match(second.store.summary('test-agent', apiSession(sid)) ?? '', /heron/);
    const last = provider.requests
      .at(-1)!
      .body.messages.map((m: any) => m.content)
      .join('\n');
    assert.match(last, /Summary of the earlier part of this conversation:[\s\S]*heron/, 'the summary rides along');
  } finally {
    await second.close(true);
  }
});

test('an unreachable provider is a 502 naming the kind of failure, never its address', async () => {
  const dead = await startServe({
    provider,
    config: {
      model: fakeModel('http://127.0.0.1:9/v1'),
    },
  });
  try {
    const res = await request(`${dead.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY}` },
      body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }] }),
    });
    const text = await res.body.text();
    assert.equal(res.statusCode, 502, text);
    const e = JSON.parse(text).error;
    assert.equal(e.code, 'BAD_GATEWAY');
    assert.match(e.message, /fakeai/);
    assert.match(e.message, /connection refused/);
    assert.doesNotMatch(e.message, /127\.0\.0\.1|:9\b|ECONNREFUSED/, 'no internal address or raw error');
  } finally {
    await dead.close(true);
  }
});

test('tool calls are capped per model reply and per turn; the capped calls read why and the turn still answers (issue 57 R6)', async () => {
  const calc = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ name: 'calculator', arguments: { expression: `${i}+1` } }));
  const first = provider.requests.length;
  provider.queue.push({ toolCalls: calc(30) }, { toolCalls: calc(8) }, { toolCalls: calc(8) }, { content: 'Done.' });
  const r = await raw({ model: 'assistant-agent', messages: [{ role: 'user', content: 'add a lot' }], stream: true });
  assert.ok(r.text.includes('Done.'), r.text);
  const ran = r.text.match(/event: assistant\.tool\.progress\n/g) ?? [];
  assert.equal(ran.length, 20, 'at most 20 tool calls ran in the turn');
  const calls = provider.requests.slice(first);
  assert.equal(calls.length, 4);
  const errors = (i: number) =>
    calls[i]!.body.messages.filter((m: any) => m.role === 'tool' && JSON.parse(m.content).error);
  // The 30 calls of the first reply: 8 ran, 22 were told the per-reply cap.
  assert.equal(calls[1]!.body.messages.filter((m: any) => m.role === 'tool').length, 30);
  assert.equal(errors(1).length, 22);
  assert.match(JSON.parse(errors(1)[0].content).error, /at most 8 tool calls per reply/);
  // The third reply's 8: 4 ran (20 in all), 4 were told the per-turn cap; then no tools are offered.
  assert.equal(errors(3).length, 22 + 4);
  assert.match(JSON.parse(errors(3).at(-1).content).error, /at most 20 tool calls per message/);
  assert.ok(calls[2]!.body.tools, 'tools offered while the turn had calls left');
  assert.equal(calls[3]!.body.tools, undefined, 'no tools once the turn spent its calls');
});
