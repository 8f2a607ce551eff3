import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { assertError, getRecord, purchase } from './helpers/api.js';

let h: Harness;
let key: string;
before(async () => ({ h, key } = await startHarnessWithKey()));
after(async () => h.close());

test('the checkout page shows the slot and a Pay button that posts to /complete', async () => {
  const { deploymentId, checkoutUrl } = await purchase(h, key, 'unlimited');
  const path = new URL(checkoutUrl).pathname;
  const page = await h.inject({ method: 'GET', url: path });
  assert.equal(page.statusCode, 200);
  assert.match(page.headers['content-type'] as string, /text\/html/);
  assert.ok(page.body.includes(deploymentId));
  assert.match(page.body, /Unlimited/);
  assert.match(
    page.body,
    new RegExp(`<form method="post" action="${path}/complete"><button type="submit" id="pay">Pay</button>`),
  );
});

/** Posts the checkout page's Pay form, as a browser submits it. */
const submitPayForm = (path: string) =>
  h.inject({
    method: 'POST',
    url: `${path}/complete`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });

test('paying (as the browser form does) marks the slot paid with a subscription and a period', async () => {
  const { deploymentId, checkoutUrl } = await purchase(h, key);
  const path = new URL(checkoutUrl).pathname;
  const res = await submitPayForm(path);
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /Payment complete/);
  const rec = await getRecord(h, key, deploymentId);
  assert.equal(rec.paymentStatus, 'paid');
  assert.match(rec.paymentSubscriptionId, /^local_sub_/);
  const days = (Date.parse(rec.currentPeriodEnd) - Date.parse(rec.createdAt)) / 86_400_000;
  assert.ok(days > 29.9 && days < 30.1, `period of ${days} days`);
  assert.equal(rec.status, 'purchased', 'paying does not activate');
  // Paying twice changes nothing.
  await h.inject({ method: 'POST', url: `${path}/complete` });
  assert.deepEqual(await getRecord(h, key, deploymentId), rec);
  // The page now says it is paid instead of offering to pay again.
  const page = await h.inject({ method: 'GET', url: path });
  assert.match(page.body, /Payment complete/);
  assert.doesNotMatch(page.body, /id="pay"/);
});

test('an unknown checkout is a 404 page and changes nothing', async () => {
  const before = await h.snapshot();
  for (const method of ['GET', 'POST'] as const) {
    const res = await h.inject({ method, url: method === 'GET' ? '/checkout/unknown' : '/checkout/unknown/complete' });
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /Checkout not found/);
  }
  assert.deepEqual(await h.snapshot(), before);
});

test('/complete moves only pending to paid: a canceled or past-due slot is not revived', async () => {
  for (const status of ['canceled', 'past_due'] as const) {
    const { deploymentId, checkoutUrl } = await purchase(h, key);
    const path = new URL(checkoutUrl).pathname;
    await h.runtime.store.db
      .updateTable('deployments')
      .set({ payment_status: status })
      .where('id', '=', deploymentId)
      .execute();
    const before = await h.snapshot();
    const res = await submitPayForm(path);
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /cannot be paid here/);
    assert.doesNotMatch(res.body, /id="pay"/);
    assert.deepEqual(await h.snapshot(), before);
    assert.equal((await getRecord(h, key, deploymentId)).paymentStatus, status);
    assert.doesNotMatch((await h.inject({ method: 'GET', url: path })).body, /id="pay"/);
  }
});

test('the local provider mounts no Stripe webhook nor return pages', async () => {
  assertError(
    await h.inject({
      method: 'POST',
      url: '/api/webhooks/stripe',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    }),
    404,
    'NOT_FOUND',
  );
  const success = await h.inject({ method: 'GET', url: '/checkout/success?session_id=x' });
  assert.equal(success.statusCode, 404);
  assert.match(success.body, /Checkout not found/);
});
