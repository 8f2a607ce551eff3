// Issue 8 (low): errors name the kind of failure, never an internal address. The model gateway's
// answer when the router cannot be reached reaches chat clients through the worker, so it must
// say "connection refused" and quote the request id, not the router's address or Node's message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from './helpers/harness.js';
import { routerCatalog } from './helpers/catalog.js';
import { activeDeployment } from './helpers/api.js';
import { REFUSED_PORT } from './helpers/callback-receiver.js';

test('an unreachable model router is a 502 naming the kind of failure, never its address', async () => {
  const catalog = routerCatalog(`http://127.0.0.1:${REFUSED_PORT}/v1`);
  const h = await startHarness({
    MODEL_CATALOG: catalog,
    MANAGED_PROVIDER_API_KEY: 'sk-operator-router-key-0123456789',
  });
  try {
    const key = await h.key();
    const id = await activeDeployment(h, key, 'managed');
    const d = (await h.runtime.services.deployments.findById(id))!;
    const spec = h.workers.workers.get(d.workerName)!;
    const res = await h.inject({
      method: 'POST',
      url: '/gateway/v1/chat/completions',
      headers: { authorization: `Bearer ${spec.model.apiKey}`, 'content-type': 'application/json' },
      payload: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] },
    });
    assert.equal(res.statusCode, 502, res.body);
    const e = res.json().error;
    assert.equal(e.code, 'BAD_GATEWAY');
    assert.match(e.message, /could not be reached \(connection refused, request [0-9a-f-]{36}\)/);
    assert.doesNotMatch(e.message, /127\.0\.0\.1|:9\b|ECONNREFUSED/, 'no internal address or raw error');
  } finally {
    await h.close();
  }
});
