// Closing the harness ends even when a test failed before it released what it held (decision
// 0030): a deploy held on the fake's gate, or a list hung on its 'hang' fault, would otherwise keep
// the runtime's close (and on PostgreSQL the store's pool, and the test process) waiting for ever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from './helpers/harness.js';
import { activationBody, pay, purchase } from './helpers/api.js';

/** Resolves with how `work` ended; 'waiting' if it had not after `ms`. */
async function within(ms: number, work: Promise<unknown>) {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    work.then(
      () => 'closed',
      (err: unknown) => `failed: ${String(err)}`,
    ),
    new Promise<string>((ok) => {
      timer = setTimeout(() => ok('waiting'), ms);
    }),
  ]);
  clearTimeout(timer);
  return outcome;
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
  for (let i = 0; h.workers.createCalls === calls; i++) {
    assert.ok(i < 400, 'the deploy job never called createWorker');
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.equal(await within(15_000, h.close()), 'closed');
});

test('a list hung on the backend, the fault never cleared: close still ends', async () => {
  const h = await startHarness({}, { reconcileIntervalMs: 100 });
  h.workers.listFault = 'hang';
  for (let i = 0; h.workers.hangingLists === 0; i++) {
    assert.ok(i < 400, 'no pass listed');
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.equal(await within(15_000, h.close()), 'closed');
});
