// GET /api/v1/catalog/models (DESIGN §7.1): the picker's list with modes, prices and capabilities,
// for any valid key; an unknown model on activate is still the spec's 400 naming the catalog.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { activationBody, assertError, pay, purchase } from './helpers/api.js';

let h: Harness;
let key: string;
before(async () => ({ h, key } = await startHarnessWithKey()));
after(async () => h.close());

test('every catalog model with its modes and price; the router models run in every mode', async () => {
  const res = await h.inject({ method: 'GET', url: '/api/v1/catalog/models', headers: { 'x-api-key': key } });
  assert.equal(res.statusCode, 200, res.body);
  const models = res.json().data as Array<{ provider: string; id: string; modes: string[]; pricing: unknown }>;
  const total = h.runtime.services.catalog.providers.reduce((n, p) => n + p.models.length, 0);
  assert.equal(models.length, total);
  const routed = models.find((m) => m.provider === 'openrouter' && m.id === 'openai/gpt-4o-mini')!;
  assert.deepEqual(routed.modes, ['byok', 'managed', 'unlimited']);
  assert.deepEqual(routed.pricing, { prompt: 0.15, completion: 0.6 });
  const direct = models.find((m) => m.provider === 'openai' && m.id === 'gpt-4o-mini')!;
  assert.deepEqual(direct.modes, ['byok']);
  assert.equal(direct.pricing, null);
  for (const m of models) assert.ok(Array.isArray((m as { capabilities?: unknown }).capabilities));
});

test('no key: 401; an unknown model on activate: 400 INVALID_INPUT naming the catalog', async () => {
  assertError(await h.inject({ method: 'GET', url: '/api/v1/catalog/models' }), 401, 'UNAUTHORIZED');
  const { deploymentId, checkoutUrl } = await purchase(h, key, 'byok');
  await pay(h, checkoutUrl);
  const res = await h.inject({
    method: 'POST',
    url: `/api/v1/assistants/${deploymentId}/activate`,
    headers: { 'x-api-key': key },
    payload: activationBody('byok', { modelId: 'gpt-nonexistent' }),
  });
  assertError(res, 400, 'INVALID_INPUT');
  assert.match(res.json().error.message, /catalog/);
});
