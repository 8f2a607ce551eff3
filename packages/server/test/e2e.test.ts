// End to end over loopback: control plane + real agent host + fake Telegram and provider, driven
// by the official openai package. Runs on SQLite, and on PostgreSQL in CI's second pass.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { request } from 'undici';
import { startE2E, type E2E, MODEL_KEY } from './helpers/e2e.js';
import { until } from './helpers/until.js';
import { REFUSED_PORT } from './helpers/callback-receiver.js';

const BOT = '7200000001:AAe2eFakeBotTokenForControlPlaneTests_x';
let e: E2E;
let id: string;
let client: OpenAI;

before(async () => {
  e = await startE2E();
  e.tg.addBot(BOT);
  id = await e.activate(BOT);
  client = new OpenAI({ apiKey: e.key, baseURL: `${e.url}/api/v1/assistants/${id}`, maxRetries: 0 });
});
after(async () => e.close());

test('activate → deploying → active, with the worker URL of the local agent host', async () => {
  const view = await e.waitForStatus(id, ['active', 'failed']);
  assert.equal(view.status, 'active', view.statusMessage);
  // A name, not the host's address (a Unix socket in a 0700 directory: agent-host-isolation.test.ts).
  assert.match(view.workerUrl, /^berth-local-host:\/agents\/asst-/);
  assert.equal(view.statusMessage, null);
});

// The stock clients (the OpenAI SDK and others) are exercised in test/client-compat/.

test('tool progress events are visible in the raw stream', async () => {
  e.provider.queue.push(
    { toolCalls: [{ name: 'calculator', arguments: { expression: '2+2' } }] },
    { content: 'Four.' },
  );
  const res = await request(`${e.url}/api/v1/assistants/${id}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${e.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: '2+2?' }], stream: true }),
  });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/event-stream/);
  const text = await res.body.text();
  const progress = /event: assistant\.tool\.progress\ndata: (.*)\n/.exec(text);
  assert.ok(progress, text);
  assert.deepEqual(JSON.parse(progress[1]!), {
    id: JSON.parse(progress[1]!).id,
    object: 'chat.completion.chunk',
    created: JSON.parse(progress[1]!).created,
    model: 'assistant-agent',
    choices: [{ index: 0, delta: {}, finish_reason: null }],
    tool: 'calculator',
    emoji: '🧮',
    label: 'Calculating 2+2',
  });
  assert.ok(text.includes('Four.'));
  assert.ok(text.trimEnd().endsWith('data: [DONE]'));
});

test('a Telegram user message is answered by the bot', async () => {
  e.tg.userSends(BOT, 7001, { text: 'hi from telegram' });
  const reply = await e.tg.waitForSent((m) => m.chat_id === 7001);
  assert.equal(reply.text, 'You said: hi from telegram');
});

test('stop ends the worker, redeploy brings it back, delete removes it', async () => {
  const stopped = await e.api('POST', `/api/v1/assistants/${id}/stop`);
  assert.equal(stopped.status, 200, stopped.text);
  assert.equal(stopped.json.data.status, 'stopped');
  const chat = await e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'x' }],
  });
  assert.equal(chat.status, 409);
  assert.equal(chat.json.error.code, 'ASSISTANT_NOT_READY');
  assert.deepEqual((await e.runtime.services.workers.listWorkers()).names, []);
  const polls = e.tg.activePolls(BOT);
  assert.equal(polls, 0, 'the bot stopped polling');

  assert.equal((await e.api('POST', `/api/v1/assistants/${id}/redeploy`)).status, 200);
  assert.equal((await e.waitForStatus(id, ['active', 'failed'])).status, 'active');
  const again = await client.chat.completions.create({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'back again' }],
  });
  assert.equal(again.choices[0]!.message.content, 'You said: back again');

  assert.equal((await e.api('DELETE', `/api/v1/assistants/${id}`)).status, 200);
  assert.deepEqual((await e.runtime.services.workers.listWorkers()).names, []);
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}`)).status, 404);
});

test('a worker whose token Telegram rejects ends failed, saying why', async () => {
  const bad = await e.activate('7299999999:AAtokenThatTheFakeTelegramDoesNotKnow_z');
  const view = await e.waitForStatus(bad, ['active', 'failed']);
  assert.equal(view.status, 'failed');
  assert.match(view.statusMessage, /Telegram rejected the bot token/);
});

test('a worker that never becomes ready fails at the deadline with the last reason', async () => {
  // The deadline passes on the control plane's clock, moved on once the worker has reported its
  // first getMe failure (the reason the deadline must carry): on the wall clock a loaded machine's
  // agent host sometimes had no reason yet, at 2 s and again at 6 s under a second suite's load.
  let ahead = 0;
  const slow = await startE2E({ DEPLOY_TIMEOUT_SECONDS: '6' }, { now: () => new Date(Date.now() + ahead) });
  try {
    const token = '7300000001:AAneverReadyBotTokenForDeadlineTests_q';
    slow.tg.addBot(token);
    slow.tg.broken.add('getMe');
    const d = await slow.activate(token);
    await until(
      'the deploy to show the reason it waits',
      async () => {
        const v = (await slow.api('GET', `/api/v1/assistants/${d}/status`)).json.data;
        return /getMe failed: Telegram answered 502/.test(v.statusMessage ?? '') || undefined;
      },
      30_000,
    );
    ahead = 6_000;
    const view = await slow.waitForStatus(d, ['active', 'failed']);
    assert.equal(view.status, 'failed');
    assert.match(
      view.statusMessage,
      /not ready within 6 s \(Waiting for Telegram: getMe failed: Telegram answered 502/,
    );
  } finally {
    await slow.close();
  }
});

test('while deploying against a closed Telegram port, the status says so within 10 s', async () => {
  // A port that refuses connections, where one just freed by listen(0) could be any process's
  // again by the time the control plane connects.
  const port = REFUSED_PORT;
  const closed = await startE2E({ TELEGRAM_API_ROOT: `http://127.0.0.1:${port}`, DEPLOY_TIMEOUT_SECONDS: '60' });
  try {
    const d = await closed.activate('7300000002:AAclosedPortBotTokenForProgressTest_q');
    const view = await until(
      'the status to say it waits for Telegram',
      async () => {
        const v: { status: string; statusMessage: string | null } = (
          await closed.api('GET', `/api/v1/assistants/${d}/status`)
        ).json.data;
        return v?.statusMessage && /Telegram/.test(v.statusMessage) ? v : undefined;
      },
      10_000,
      200,
    );
    assert.equal(view.status, 'deploying');
    assert.match(view.statusMessage!, /^Waiting for Telegram: getMe failed: connection refused \(attempt \d+\)$/);
    // No port number, address or token in what the owner reads.
    assert.ok(!view.statusMessage!.includes(String(port)));
  } finally {
    await closed.close();
  }
});

test('no secret appears in any log line of the control plane or the agent host', () => {
  const all = e.logs.join('') + e.agentLogs.join('\n');
  assert.ok(e.logs.length > 10 && e.agentLogs.length > 0);
  for (const secret of [BOT, MODEL_KEY, e.key])
    assert.ok(!all.includes(secret), `a log line holds ${secret.slice(0, 10)}…`);
});

test('a client that disconnects mid-stream cancels the turn all the way to the provider', async () => {
  const bot = '7200000002:AAe2eDisconnectCancelsUpstreamToken_xyz';
  e.tg.addBot(bot);
  const d = await e.activate(bot);
  await e.waitForStatus(d, ['active']);
  e.provider.queue.push({ content: 'word '.repeat(300), chunkDelayMs: 20 });
  const ac = new AbortController();
  const seen = e.provider.requests.length;
  const res = await request(`${e.url}/api/v1/assistants/${d}/chat/completions`, {
    method: 'POST',
    signal: ac.signal,
    headers: { authorization: `Bearer ${e.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'assistant-agent',
      messages: [{ role: 'user', content: 'go on and on' }],
      stream: true,
    }),
  });
  // Headers come back before the model is called (they are sent at once): wait for the call.
  await until('the model call', () => e.provider.requests.length > seen || undefined, 15_000, 10);
  const upstream = e.provider.requests.at(-1)!;
  for await (const _ of res.body) {
    ac.abort();
    break;
  }
  await until('the provider request cancelled', () => upstream.aborted || undefined, 5000, 20);
});
