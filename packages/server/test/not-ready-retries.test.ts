// ASSISTANT_NOT_READY tells stock SDKs whether retrying can help: never for a stopped, failed or
// purchased deployment (x-should-retry: false), after a pause while it is deploying (Retry-After).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from './helpers/harness.js';
import { activate, pay, purchase } from './helpers/api.js';

const chat = { model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] };

// That the OpenAI SDK (and LangChain, and the generated clients) make exactly one request to a
// stopped deployment is proven against a real agent host in test/client-compat/.

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
    const activated = await activate(h, key, id);
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
