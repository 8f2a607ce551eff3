// The chat route answers from memory once it has seen a deployment (its target, and a byok period
// without a cap): the second chat and the ones after must get what the first got, through each
// status of the deployment's life (deploying, active, stopped), and the worker must be reached with
// the deployment's current token (decision 0027, round 9).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { startWithWorker } from './helpers/harness.js';
import { activate, activeDeployment, assertError, pay, purchase, stopAssistant } from './helpers/api.js';

// With usage, as a byok reply carries it; relayed as the bytes the worker sent.
const answer = `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}`;
const seen: Array<string | undefined> = [];
const worker = createServer((req, res) => {
  seen.push(req.headers.authorization);
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json', 'x-assistant-session-id': 's-1' });
  res.end(answer);
});

test('every chat of a deployment answers as its first: while deploying, once active, after a stop', async () => {
  const bed = await startWithWorker(worker);
  const { h, key } = bed;
  let release!: () => void;
  h.workers.gate = new Promise((r) => {
    release = r;
  });
  try {
    const { deploymentId: id, checkoutUrl } = await purchase(h, key);
    await pay(h, checkoutUrl);
    assert.equal((await activate(h, key, id)).json().data.status, 'deploying');
    const chat = () =>
      h.inject({
        method: 'POST',
        url: `/api/v1/assistants/${id}/chat/completions`,
        headers: { 'x-api-key': key },
        payload: { model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] },
      });

    // Deploying: the target is now in memory, but not ready; the second refusal is the first's.
    const deploying = [await chat(), await chat()];
    for (const res of deploying) {
      assertError(res, 409, 'ASSISTANT_NOT_READY');
      assert.equal(res.headers['retry-after'], '2');
    }
    assert.equal(deploying[1]!.json().error.message, deploying[0]!.json().error.message);
    assert.equal(seen.length, 0, 'no chat reached the worker before it was ready');

    release();
    await h.runtime.idle();
    // Active: the worker's answer byte for byte, its headers, each time with the deployment's token.
    const active = [await chat(), await chat(), await chat()];
    for (const res of active) {
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.body, answer);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.headers['x-assistant-session-id'], 's-1');
    }
    assert.equal(seen.length, 3);
    assert.match(seen[0]!, /^Bearer \S+$/);
    assert.deepEqual(new Set(seen), new Set([seen[0]]), 'the same token on every chat');

    // Stopped: what the deployment is now, not what was remembered.
    await stopAssistant(h, key, id);
    for (const res of [await chat(), await chat()]) {
      assertError(res, 409, 'ASSISTANT_NOT_READY');
      assert.equal(res.headers['x-should-retry'], 'false');
    }
    assert.equal(seen.length, 3, 'a stopped assistant is not reached');
  } finally {
    release();
    await bed.close();
  }
});

test("each deployment's chats reach its own worker with its own token, alternating between two owners", async () => {
  const reached: Array<{ url: string | undefined; auth: string | undefined }> = [];
  const shared = createServer((req, res) => {
    reached.push({ url: req.url, auth: req.headers.authorization });
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(answer);
  });
  const bed = await startWithWorker(shared);
  const { h } = bed;
  try {
    // Two people, one assistant each, on the same worker host (the workers differ by their path).
    const keys = [bed.key, await h.key()];
    const ids = [await activeDeployment(h, keys[0]!), await activeDeployment(h, keys[1]!)];
    const chat = (i: number) =>
      h.inject({
        method: 'POST',
        url: `/api/v1/assistants/${ids[i]}/chat/completions`,
        headers: { 'x-api-key': keys[i]! },
        payload: { model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] },
      });
    const order = [0, 1, 0, 1, 1, 0];
    for (const i of order) assert.equal((await chat(i)).statusCode, 200);
    const paths = reached.map((r) => r.url);
    assert.equal(new Set(paths).size, 2, 'two workers reached');
    assert.equal(new Set(reached.map((r) => r.auth)).size, 2, 'two tokens');
    // Every chat of one deployment went where its first went, with its first's token.
    for (const [n, i] of order.entries()) {
      const first = reached[order.indexOf(i)]!;
      assert.deepEqual(reached[n], first, `chat ${n} of deployment ${i}`);
    }
    assert.notDeepEqual(reached[0], reached[1]);
    // And another owner's key never reaches an assistant that is not theirs.
    const foreign = await h.inject({
      method: 'POST',
      url: `/api/v1/assistants/${ids[1]}/chat/completions`,
      headers: { 'x-api-key': keys[0]! },
      payload: { model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] },
    });
    assertError(foreign, 404, 'NOT_FOUND');
    assert.equal(reached.length, order.length);
  } finally {
    await bed.close();
  }
});
