// PAYMENT_PROVIDER=stripe with the real stripe client against a loopback fake of the Stripe API,
// and webhooks signed with stripe.webhooks.generateTestHeaderString.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FakeStripe } from '@berth/testkit';
import { type Harness, BOT_TOKEN } from './helpers/harness.js';
import { makePendingJobsDue } from './helpers/due-jobs.js';
import { deliverStripeEvent, startStripeHarness, WEBHOOK_SECRET } from './helpers/stripe.js';
import { activate, assertError, getRecord, deleteAssistant } from './helpers/api.js';

let fake: FakeStripe;
let h: Harness;
let key: string;

before(async () => {
  ({ fake, h } = await startStripeHarness({ STRIPE_PRICE_MANAGED: 'price_managed_1' }));
  key = await h.key();
});
after(async () => {
  await h.close();
  await fake.stop();
});

const purchase = (apiMode: string, headers: Record<string, string> = {}, k = key) =>
  h.inject({
    method: 'POST',
    url: '/api/v1/assistants/purchase',
    headers: { 'x-api-key': k, ...headers },
    payload: { apiMode },
  });

const event = (type: string, object: object, created?: number) => fake.event(type, object, created);

const deliver = (ev: object, secret?: string, timestamp?: number) => deliverStripeEvent(h, ev, secret, timestamp);

const sessionOf = (deploymentId: string): string =>
  [...fake.sessions.values()].find((s) => s.client_reference_id === deploymentId).id;

/** purchase → the customer pays → checkout.session.completed */
async function paidSlot() {
  const res = await purchase('byok');
  const { deploymentId } = res.json().data;
  const sessionId = sessionOf(deploymentId);
  const { session, subscription } = fake.completeSession(sessionId);
  const r = await deliver(event('checkout.session.completed', session));
  assert.equal(r.statusCode, 200, r.body);
  return { deploymentId, subscription };
}

test("purchase creates a subscription Checkout Session with the mode's price and answers its URL", async () => {
  const res = await purchase('managed');
  assert.equal(res.statusCode, 201, res.body);
  const { deploymentId, checkoutUrl } = res.json().data;
  const req = fake.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
  assert.equal(req.params.mode, 'subscription');
  assert.equal(req.params['line_items[0][price]'], 'price_managed_1');
  assert.equal(req.params['line_items[0][quantity]'], '1');
  assert.equal(req.params.client_reference_id, deploymentId);
  assert.equal(req.params['metadata[deploymentId]'], deploymentId);
  assert.equal(req.params['subscription_data[metadata][deploymentId]'], deploymentId);
  assert.equal(req.params.success_url, 'http://berth.test/checkout/success?session_id={CHECKOUT_SESSION_ID}');
  assert.match(req.params.cancel_url, /^http:\/\/berth\.test\/checkout\/cancel\?deployment_id=/);
  assert.equal(req.headers['idempotency-key'], `purchase-${deploymentId}`);
  const session = fake.sessions.get([...fake.sessions.keys()].at(-1)!);
  assert.equal(checkoutUrl, session.url);
  // A real test-mode session id is 66 characters; on PostgreSQL the slot row has to hold it.
  assert.match(session.id, /^cs_test_[A-Za-z0-9]{58}$/);
  const row = await h.runtime.store.db
    .selectFrom('deployments')
    .select('checkout_id')
    .where('id', '=', deploymentId)
    .executeTakeFirstOrThrow();
  assert.equal(row.checkout_id, session.id);
  assert.equal((await getRecord(h, key, deploymentId)).paymentStatus, 'pending');
});

test('a mode without a price is 500 PAYMENT_NOT_CONFIGURED, and nothing is written or sent', async () => {
  const before = await h.snapshot();
  const sent = fake.requests.length;
  const res = await purchase('unlimited');
  assertError(res, 500, 'PAYMENT_NOT_CONFIGURED');
  assert.deepEqual(await h.snapshot(), before);
  assert.equal(fake.requests.length, sent);
});

test('Idempotency-Key: a retry gets the same slot; another body with the same key is refused', async () => {
  const sessions = fake.sessions.size;
  const a = await purchase('byok', { 'idempotency-key': 'order-42' });
  const b = await purchase('byok', { 'idempotency-key': 'order-42' });
  assert.equal(a.statusCode, 201);
  assert.equal(b.statusCode, 201);
  assert.deepEqual(b.json(), a.json());
  assert.equal(b.headers['idempotent-replayed'], 'true');
  assert.equal(fake.sessions.size, sessions + 1, 'one checkout session for both');
  const other = await purchase('managed', { 'idempotency-key': 'order-42' });
  assertError(other, 400, 'INVALID_REQUEST');
  assert.match(other.json().error.message, /already used with a different request body/);
  const stranger = await h.key();
  const theirs = await purchase('byok', { 'idempotency-key': 'order-42' }, stranger);
  assert.notEqual(theirs.json().data.deploymentId, a.json().data.deploymentId, 'keys are per user');
  assertError(await purchase('byok', { 'idempotency-key': 'x'.repeat(256) }), 400, 'INVALID_REQUEST');
});

test('webhooks: a bad signature is a 400 and changes nothing', async () => {
  const before = await h.snapshot();
  const res = await deliver(event('invoice.paid', {}), 'whsec_wrong');
  assertError(res, 400, 'INVALID_REQUEST');
  const unsigned = await h.inject({
    method: 'POST',
    url: '/api/webhooks/stripe',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(event('invoice.paid', {})),
  });
  assertError(unsigned, 400, 'INVALID_REQUEST');
  assert.deepEqual(await h.snapshot(), before);
});

test('webhooks: a signature dated an hour ahead is a 400 and changes nothing; a minute ahead (clock skew) is taken', async () => {
  const before = await h.snapshot();
  const now = Math.floor(Date.now() / 1000);
  assertError(await deliver(event('invoice.paid', {}), WEBHOOK_SECRET, now + 3600), 400, 'INVALID_REQUEST');
  assert.deepEqual(await h.snapshot(), before);
  const skewed = await deliver(event('customer.created', {}), WEBHOOK_SECRET, now + 60);
  assert.equal(skewed.statusCode, 200, skewed.body);
});

test('checkout.session.completed marks the slot paid with the subscription and its period', async () => {
  const { deploymentId, subscription } = await paidSlot();
  const rec = await getRecord(h, key, deploymentId);
  assert.equal(rec.paymentStatus, 'paid');
  assert.equal(rec.paymentSubscriptionId, subscription.id);
  assert.equal(rec.currentPeriodEnd, new Date(subscription.items.data[0].current_period_end * 1000).toISOString());
  const page = await h.inject({
    method: 'GET',
    url: `/checkout/success?session_id=${[...fake.sessions.values()].find((s) => s.client_reference_id === deploymentId).id}`,
  });
  assert.match(page.body, /Payment complete/);
});

test('invoice.paid extends the period; invoice.payment_failed makes it past_due; updated carries cancellation', async () => {
  const { deploymentId, subscription } = await paidSlot();
  const nextEnd = subscription.items.data[0].current_period_end + 30 * 86400;
  await deliver(
    event('invoice.paid', {
      object: 'invoice',
      parent: { subscription_details: { subscription: subscription.id, metadata: { deploymentId } } },
      lines: { data: [{ period: { end: nextEnd } }] },
    }),
  );
  assert.equal((await getRecord(h, key, deploymentId)).currentPeriodEnd, new Date(nextEnd * 1000).toISOString());
  await deliver(event('invoice.payment_failed', { object: 'invoice', subscription: subscription.id }));
  assert.equal((await getRecord(h, key, deploymentId)).paymentStatus, 'past_due');
  const cancelAt = nextEnd;
  await deliver(
    event('customer.subscription.updated', {
      ...subscription,
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: cancelAt,
      items: { data: [{ current_period_end: nextEnd }] },
    }),
  );
  const rec = await getRecord(h, key, deploymentId);
  assert.equal(rec.paymentStatus, 'paid');
  assert.equal(rec.canceledAt, new Date(cancelAt * 1000).toISOString());
  // An older update arriving late does not undo the newer one.
  await deliver(
    event(
      'customer.subscription.updated',
      { ...subscription, status: 'past_due', cancel_at_period_end: false },
      Math.floor(Date.now() / 1000) - 3600,
    ),
  );
  assert.equal((await getRecord(h, key, deploymentId)).paymentStatus, 'paid');
});

test('customer.subscription.deleted cancels the slot and stops its running worker', async () => {
  const { deploymentId, subscription } = await paidSlot();
  const act = await activate(h, key, deploymentId);
  assert.equal(act.statusCode, 200, act.body);
  await h.runtime.idle();
  const name = (await getRecord(h, key, deploymentId)).workerName;
  assert.ok(h.workers.workers.has(name));
  const res = await deliver(
    event('customer.subscription.deleted', { ...subscription, status: 'canceled', canceled_at: 1_800_000_000 }),
  );
  assert.equal(res.statusCode, 200);
  await h.runtime.idle();
  const rec = await getRecord(h, key, deploymentId);
  assert.equal(rec.paymentStatus, 'canceled');
  assert.equal(rec.canceledAt, new Date(1_800_000_000 * 1000).toISOString());
  assert.equal(rec.status, 'stopped');
  assert.match(rec.statusMessage, /subscription was canceled/);
  assert.ok(!h.workers.workers.has(name));
  assert.deepEqual(h.workers.purged, [], "its users' data is kept: a cancellation is a stop, not a delete");
  assertError(
    await h.inject({
      method: 'POST',
      url: `/api/v1/assistants/${deploymentId}/redeploy`,
      headers: { 'x-api-key': key },
    }),
    409,
    'INVALID_STATE',
  );
  assert.ok(!JSON.stringify(h.logs).includes(BOT_TOKEN));
});

test('duplicates are applied once; deleted before completed stays canceled; unknown types are ignored', async () => {
  const { deploymentId, subscription } = await paidSlot();
  const nextEnd = subscription.items.data[0].current_period_end + 86400;
  const paid = event('invoice.paid', {
    object: 'invoice',
    subscription: subscription.id,
    lines: { data: [{ period: { end: nextEnd } }] },
  });
  const first = await deliver(paid);
  const rec1 = await getRecord(h, key, deploymentId);
  const second = await deliver(paid);
  assert.equal(first.json().result, 'applied');
  assert.equal(second.json().result, 'duplicate');
  assert.deepEqual(await getRecord(h, key, deploymentId), rec1);

  // A new slot whose cancellation overtakes its checkout completion.
  const res = await purchase('byok');
  const id = res.json().data.deploymentId;
  const sessionId = [...fake.sessions.values()].find((s) => s.client_reference_id === id).id;
  const { session, subscription: sub } = fake.completeSession(sessionId);
  assert.equal(
    (
      await deliver(
        event('customer.subscription.deleted', {
          ...sub,
          status: 'canceled',
          canceled_at: Math.floor(Date.now() / 1000),
        }),
      )
    ).statusCode,
    200,
  );
  assert.equal((await deliver(event('checkout.session.completed', session))).statusCode, 200);
  const rec = await getRecord(h, key, id);
  assert.equal(rec.paymentStatus, 'canceled');
  assert.equal(rec.paymentSubscriptionId, sub.id);
  assertError(await activate(h, key, id), 409, 'INVALID_STATE');

  const ignored = await deliver(event('customer.created', { object: 'customer', id: 'cus_1' }));
  assert.equal(ignored.statusCode, 200);
  assert.equal(ignored.json().result, 'ignored');
});

test('delete cancels the subscription; a Stripe failure is retried from the outbox and does not block the delete', async () => {
  const { deploymentId, subscription } = await paidSlot();
  // More failures than the Stripe client's own two retries: the outbox has to take over.
  fake.failCancels = 3;
  const res = await h.inject({
    method: 'DELETE',
    url: `/api/v1/assistants/${deploymentId}`,
    headers: { 'x-api-key': key },
  });
  assert.equal(res.statusCode, 200);
  assertError(
    await h.inject({ method: 'GET', url: `/api/v1/assistants/${deploymentId}`, headers: { 'x-api-key': key } }),
    404,
    'NOT_FOUND',
  );
  await h.runtime.idle();
  assert.equal(fake.subscriptions.get(subscription.id).status, 'active', 'the first attempt failed');
  assert.ok(h.logs.some((l) => l.includes('subscription cancellation failed; will retry')));
  await makePendingJobsDue(h.runtime, 'cancel_subscription');
  await h.runtime.idle();
  assert.equal(fake.subscriptions.get(subscription.id).status, 'canceled');
  assert.equal(
    fake.requests.filter((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${subscription.id}`).length,
    4,
  );
});

test('checkout return pages', async () => {
  const res = await purchase('byok');
  const { deploymentId } = res.json().data;
  const sessionId = [...fake.sessions.values()].find((s) => s.client_reference_id === deploymentId).id;
  const pending = await h.inject({ method: 'GET', url: `/checkout/success?session_id=${sessionId}` });
  assert.equal(pending.statusCode, 200);
  assert.match(pending.body, /Confirming your payment/);
  const cancel = await h.inject({ method: 'GET', url: `/checkout/cancel?deployment_id=${deploymentId}` });
  assert.match(cancel.body, /Checkout canceled/);
  assert.equal((await h.inject({ method: 'GET', url: '/checkout/success?session_id=cs_unknown' })).statusCode, 404);
});

test('under Stripe there is no local checkout: /checkout/<session id> and its /complete are 404 and change nothing', async () => {
  const { deploymentId, subscription } = await paidSlot();
  // Canceled: the old /complete revived such a slot.
  await deliver(
    event('customer.subscription.deleted', {
      ...subscription,
      status: 'canceled',
      canceled_at: Math.floor(Date.now() / 1000),
    }),
  );
  const pendingRes = await purchase('byok');
  const pendingId = pendingRes.json().data.deploymentId;
  const before = await h.snapshot();
  for (const id of [deploymentId, pendingId]) {
    const sessionId = sessionOf(id);
    // The id the buyer sees in checkoutUrl.
    if (id === pendingId)
      assert.equal(new URL(pendingRes.json().data.checkoutUrl).pathname.split('/').at(-1), sessionId);
    assertError(await h.inject({ method: 'GET', url: `/checkout/${sessionId}` }), 404, 'NOT_FOUND');
    for (const headers of [{}, { 'content-type': 'application/x-www-form-urlencoded' }]) {
      assertError(
        await h.inject({ method: 'POST', url: `/checkout/${sessionId}/complete`, headers, payload: '' }),
        404,
        'NOT_FOUND',
      );
    }
  }
  assert.deepEqual(await h.snapshot(), before);
  assert.equal((await getRecord(h, key, deploymentId)).paymentStatus, 'canceled');
  assert.equal((await getRecord(h, key, pendingId)).paymentStatus, 'pending');
});

test('a delayed payment method: completed-but-unpaid is not paid; async_payment_succeeded pays, _failed says so', async () => {
  const ok = (await purchase('byok')).json().data.deploymentId;
  const { session } = fake.completeSession(sessionOf(ok), undefined, { delayed: true });
  assert.equal(session.payment_status, 'unpaid');
  const r = await deliver(event('checkout.session.completed', session));
  assert.equal(r.json().result, 'applied');
  let rec = await getRecord(h, key, ok);
  assert.equal(rec.paymentStatus, 'pending');
  assert.match(rec.statusMessage, /processing/);
  assertError(await activate(h, key, ok), 409, 'INVALID_STATE');
  const settled = fake.settleDelayedPayment(sessionOf(ok), true);
  await deliver(event('checkout.session.async_payment_succeeded', settled.session));
  rec = await getRecord(h, key, ok);
  assert.equal(rec.paymentStatus, 'paid');
  assert.equal(rec.paymentSubscriptionId, settled.subscription.id);
  assert.equal(
    rec.currentPeriodEnd,
    new Date(settled.subscription.items.data[0].current_period_end * 1000).toISOString(),
  );

  const failing = (await purchase('byok')).json().data.deploymentId;
  const delayed = fake.completeSession(sessionOf(failing), undefined, { delayed: true });
  await deliver(event('checkout.session.completed', delayed.session));
  await deliver(
    event('checkout.session.async_payment_failed', fake.settleDelayedPayment(sessionOf(failing), false).session),
  );
  rec = await getRecord(h, key, failing);
  assert.equal(rec.paymentStatus, 'pending');
  assert.match(rec.statusMessage, /Payment failed.*purchase a new one/);

  // A 100% discount: nothing to pay is as good as paid.
  const free = (await purchase('byok')).json().data.deploymentId;
  const done = fake.completeSession(sessionOf(free));
  await deliver(
    event('checkout.session.completed', { ...done.session, payment_status: 'no_payment_required', amount_total: 0 }),
  );
  assert.equal((await getRecord(h, key, free)).paymentStatus, 'paid');
});

const expireCalls = (sessionId: string) =>
  fake.requests.filter((r) => r.method === 'POST' && r.path === `/v1/checkout/sessions/${sessionId}/expire`).length;
const cancelCalls = (subId: string) =>
  fake.requests.filter((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${subId}`).length;

const jobsOf = (deploymentId: string) =>
  h.runtime.store.db.selectFrom('jobs').selectAll().where('deployment_id', '=', deploymentId).execute();

async function runDueJobsNow() {
  await makePendingJobsDue(h.runtime);
  await h.runtime.idle();
}

test('deleting an unpaid slot expires its Checkout Session; a Stripe failure is retried from the outbox', async () => {
  const { deploymentId } = (await purchase('byok')).json().data;
  const sessionId = sessionOf(deploymentId);
  fake.failExpires = 3;
  await deleteAssistant(h, key, deploymentId);
  await h.runtime.idle();
  assert.equal(fake.sessions.get(sessionId).status, 'open', 'the first attempt failed');
  assert.ok(h.logs.some((l) => l.includes('checkout expiry failed; will retry')));
  await runDueJobsNow();
  assert.equal(fake.sessions.get(sessionId).status, 'expired');
  assert.equal(expireCalls(sessionId), 4);
  await runDueJobsNow();
  assert.equal(expireCalls(sessionId), 4, 'done once it landed');
});

test('a checkout paid after its slot was deleted: the expiry stands down and the orphan subscription is canceled', async () => {
  const { deploymentId } = (await purchase('byok')).json().data;
  const sessionId = sessionOf(deploymentId);
  // The buyer pays just before the delete; Stripe's webhook arrives after it.
  const { session, subscription } = fake.completeSession(sessionId);
  await deleteAssistant(h, key, deploymentId);
  await h.runtime.idle();
  assert.equal(expireCalls(sessionId), 1);
  const res = await deliver(event('checkout.session.completed', session));
  assert.equal(res.json().result, 'unknown_deployment');
  await h.runtime.idle();
  assert.equal(fake.subscriptions.get(subscription.id).status, 'canceled');
  // More events about the same subscription: each cancel is idempotent (Stripe answers 404).
  await deliver(event('invoice.paid', fake.invoice(subscription.id, subscription.items.data[0].current_period_end)));
  await deliver(event('customer.subscription.updated', { ...subscription, status: 'active' }));
  await h.runtime.idle();
  assert.equal(cancelCalls(subscription.id), 3);
  const jobs = await jobsOf(deploymentId);
  assert.ok(
    jobs.every((j) => j.status === 'done'),
    JSON.stringify(jobs),
  );
  await runDueJobsNow();
  assert.equal(expireCalls(sessionId), 1, 'a completed session is not retried');
});

test('a subscription whose slot is unknown and whose buyer is not ours is left alone', async () => {
  const { subscription } = fake.completeSession(sessionOf((await purchase('byok')).json().data.deploymentId));
  // Another installation selling from the same Stripe account: its metadata names its own users.
  const stranger = { ...subscription, metadata: { deploymentId: randomUUID(), userId: randomUUID(), apiMode: 'byok' } };
  const res = await deliver(event('customer.subscription.updated', stranger));
  assert.equal(res.json().result, 'unknown_deployment');
  await h.runtime.idle();
  assert.equal(cancelCalls(stranger.id), 0);
});

test('the checkout expiry stops retrying once Stripe has expired the session by itself (24 hours)', async () => {
  const { deploymentId } = (await purchase('byok')).json().data;
  const sessionId = sessionOf(deploymentId);
  await h.runtime.store.db
    .updateTable('deployments')
    .set({ created_at: new Date(Date.now() - 25 * 3_600_000).toISOString() })
    .where('id', '=', deploymentId)
    .execute();
  fake.failExpires = 100;
  await deleteAssistant(h, key, deploymentId);
  await h.runtime.idle();
  fake.failExpires = 0;
  assert.ok(h.logs.some((l) => l.includes('checkout expiry gave up')));
  const jobs = await jobsOf(deploymentId);
  assert.deepEqual(
    jobs.map((j) => [j.kind, j.status]),
    [['expire_checkout', 'done']],
  );
  assert.equal(expireCalls(sessionId), 3, "one job run: the client's own two retries, no more");
});

test('the plan picker shows Stripe’s own prices (asked once, then cached); a mode without a price shows none', async () => {
  fake.prices.set('price_managed_1', { unit_amount: 1299, currency: 'eur', interval: 'month' });
  fake.prices.set('price_byok_1', { unit_amount: 499, currency: 'eur', interval: 'month' });
  const asked = () => fake.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/prices/')).length;
  const before = asked();
  const res = await h.inject({ method: 'GET', url: '/api/v1/plans', headers: { 'x-api-key': key } });
  assert.equal(res.statusCode, 200, res.body);
  const plans = res.json().data as Array<{ mode: string; price: unknown; allowanceUsd: number | null }>;
  assert.deepEqual(
    plans.map((p) => [p.mode, p.price, p.allowanceUsd]),
    [
      ['byok', { amount: 4.99, currency: 'eur', interval: 'month' }, null],
      ['managed', { amount: 12.99, currency: 'eur', interval: 'month' }, 5],
      ['unlimited', null, 50],
    ],
  );
  await h.inject({ method: 'GET', url: '/api/v1/plans', headers: { 'x-api-key': key } });
  assert.equal(asked() - before, 2, 'each configured price asked of Stripe once');
});
