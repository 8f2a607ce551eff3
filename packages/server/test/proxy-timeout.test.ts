// The chat proxy's patience: a worker that accepts the connection but never answers is a 502
// BAD_GATEWAY after the upstream wait (180 s in production, shortened here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { listen, close } from '@berth/testkit';
import { startHarness } from './helpers/harness.js';
import { activeDeployment, assertError } from './helpers/api.js';

test('a worker that never answers becomes BAD_GATEWAY after the upstream wait', async () => {
  const silent = createServer(() => {
    /* never answers */
  });
  const base = await listen(silent);
  const h = await startHarness({}, { upstreamTimeoutMs: 400 });
  h.workers.urlBase = base;
  try {
    const key = await h.key();
    const id = await activeDeployment(h, key);
    const t0 = Date.now();
    const res = await h.inject({
      method: 'POST',
      url: `/api/v1/assistants/${id}/chat/completions`,
      headers: { authorization: `Bearer ${key}` },
      payload: { model: 'assistant-agent', messages: [{ role: 'user', content: 'hello?' }] },
    });
    assertError(res, 502, 'BAD_GATEWAY');
    assert.match(res.json().error.message, /did not answer within 400 ms/);
    assert.ok(Date.now() - t0 >= 380, 'waited for the upstream');
  } finally {
    await h.close();
    await close(silent);
  }
});
