// ASSISTANT_NOT_READY tells stock SDKs whether retrying can help: never for a stopped, failed or
// purchased deployment (x-should-retry: false), after a pause while it is deploying (Retry-After).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { capturingLogger } from './helpers/logs.js';
import { startHarness } from './helpers/harness.js';
import { activationBody, activeDeployment, pay, purchase } from './helpers/api.js';

const chat = { model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] };

test('the OpenAI SDK does not retry chat with a stopped deployment', async () => {
  const { lines, logger } = capturingLogger('debug');
  const h = await startHarness({}, { logger });
  try {
    const key = await h.key();
    const id = await activeDeployment(h, key);
    assert.equal(
      (await h.inject({ method: 'POST', url: `/api/v1/assistants/${id}/stop`, headers: { 'x-api-key': key } }))
        .statusCode,
      200,
    );
    const address = await h.runtime.app.listen({ port: 0, host: '127.0.0.1' });
    const client = new OpenAI({ apiKey: key, baseURL: `${address}/api/v1/assistants/${id}`, maxRetries: 3 });
    const before = lines.length;
    await assert.rejects(
      client.chat.completions.create(chat as never),
      (err: unknown) => err instanceof OpenAI.APIError && err.status === 409,
    );
    const calls = lines
      .slice(before)
      .filter((l) => l.includes('"incoming request"') && l.includes('/chat/completions'));
    assert.equal(calls.length, 1, 'the SDK retried a deployment that waiting cannot fix');
  } finally {
    await h.close();
  }
});

test('while deploying, the 409 carries Retry-After and no x-should-retry', async () => {
  const h = await startHarness();
  let release!: () => void;
  h.workers.gate = new Promise((r) => {
    release = r;
  });
  try {
    const key = await h.key();
    const { deploymentId: id, checkoutUrl } = await purchase(h, key);
    await pay(h, checkoutUrl);
    const activated = await h.inject({
      method: 'POST',
      url: `/api/v1/assistants/${id}/activate`,
      headers: { 'x-api-key': key },
      payload: activationBody('byok'),
    });
    assert.equal(activated.json().data.status, 'deploying');
    const res = await h.inject({
      method: 'POST',
      url: `/api/v1/assistants/${id}/chat/completions`,
      headers: { 'x-api-key': key },
      payload: chat,
    });
    assert.equal(res.statusCode, 409);
    assert.equal(res.headers['retry-after'], '2');
    assert.equal(res.headers['x-should-retry'], undefined);
  } finally {
    release();
    await h.close();
  }
});
