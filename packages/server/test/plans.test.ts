// Prices before paying: the plan picker and the local checkout page show what a slot costs (the
// operator's PLAN_PRICE_*_USD with local payments) and the model credits it includes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startE2E, type E2E } from './helpers/e2e.js';
import { loadConfig, ConfigError } from '../src/index.js';

let e: E2E;
before(async () => {
  e = await startE2E({ PLAN_PRICE_MANAGED_USD: '9.99', PLAN_PRICE_UNLIMITED_USD: '29' });
});
after(async () => e.close());

test('GET /api/v1/plans: each mode with its price and allowance', async () => {
  const res = await e.api('GET', '/api/v1/plans');
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.data, [
    {
      mode: 'byok',
      description: 'Your model provider and key; you pay the provider for the model.',
      price: null,
      allowanceUsd: null,
    },
    {
      mode: 'managed',
      description: 'Models through Berth, with monthly credits included.',
      price: { amount: 9.99, currency: 'usd', interval: 'month' },
      allowanceUsd: 5,
    },
    {
      mode: 'unlimited',
      description: 'Managed, with a much larger monthly allowance.',
      price: { amount: 29, currency: 'usd', interval: 'month' },
      allowanceUsd: 50,
    },
  ]);
  const anonymous = await request(`${e.url}/api/v1/plans`);
  await anonymous.body.dump();
  assert.equal(anonymous.statusCode, 401);
});

test('the local checkout page names the price and the included credits', async () => {
  const bought = await e.api('POST', '/api/v1/assistants/purchase', { apiMode: 'managed' });
  const page = await request(`${e.url}${new URL(bought.json.data.checkoutUrl).pathname}`);
  const html = await page.body.text();
  assert.equal(page.statusCode, 200);
  assert.match(html, /<dd id="price">\$9\.99 a month<\/dd>/);
  assert.match(html, /Model credits<\/dt><dd>\$5\.00 a month/);
  const byok = await e.api('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
  const free = await (await request(`${e.url}${new URL(byok.json.data.checkoutUrl).pathname}`)).body.text();
  assert.match(free, /<dd id="price">no charge on this server<\/dd>/);
});

test('a price that is not a number stops start-up naming the variable', () => {
  assert.throws(
    () => loadConfig({ PLAN_PRICE_BYOK_USD: 'five dollars' }),
    (err: Error) => err instanceof ConfigError && /PLAN_PRICE_BYOK_USD/.test(err.message),
  );
});
