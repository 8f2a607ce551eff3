// Closing the harness ends even when a test failed before it released what it held (decision
// 0030): a deploy held on the fake's gate, or a list hung on its 'hang' fault, would otherwise keep
// the runtime's close (and on PostgreSQL the store's pool, and the test process) waiting for ever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from './helpers/harness.js';
import { activationBody, pay, purchase } from './helpers/api.js';
import { settledWithin } from './helpers/settled-within.js';
import { until } from './helpers/until.js';

/** Fails unless `close` has ended within 15 s. */
async function assertCloses(close: Promise<void>) {
  const outcome = await settledWithin(15_000, close);
  assert.equal(
    outcome.state,
    'resolved',
    `close: ${outcome.state} ${outcome.state === 'rejected' ? String(outcome.err) : ''}`,
  );
}

test('a deploy held on the gate, never released: close still ends', async () => {
  const h = await startHarness();
  const key = await h.key();
  const { deploymentId, checkoutUrl } = await purchase(h, key, 'byok');
  await pay(h, checkoutUrl);
  h.workers.gate = new Promise(() => {}); // the release a failed assertion skipped
  const calls = h.workers.createCalls;
  const res = await h.inject({
    method: 'POST',
    url: `/api/v1/assistants/${deploymentId}/activate`,
    headers: { 'x-api-key': key },
    payload: activationBody('byok'),
  });
  assert.equal(res.statusCode, 200, res.body);
  await until('the deploy job to call createWorker', () => h.workers.createCalls !== calls);
  await assertCloses(h.close());
});

test('a list hung on the backend, the fault never cleared: close still ends', async () => {
  const h = await startHarness({}, { reconcileIntervalMs: 100 });
  h.workers.listFault = 'hang';
  await until('a pass to list', () => h.workers.hangingLists > 0);
  await assertCloses(h.close());
});
