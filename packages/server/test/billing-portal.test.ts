// Self-serve billing (DESIGN §9.3, issue 61). With PAYMENT_PROVIDER=stripe (the real stripe client
// against the loopback Stripe fake, webhooks signed as Stripe signs them): "Manage billing" opens a
// Customer Portal session for the subscription's customer that returns to the slot's page, and a
// cancellation made in the portal arrives by webhook and reaches the subscription and the
// deployment's status. With local payments the same actions are the server's own (SQLite, or
// PostgreSQL with BERTH_TEST_DATABASE_URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FakeStripe } from '@berth/testkit';
import { startHarness, type Harness } from './helpers/harness.js';
import { deliverStripeEvent, startStripeHarness } from './helpers/stripe.js';
import { activate, activeDeployment, assertError, getRecord, purchase } from './helpers/api.js';

let fake: FakeStripe;
let stripe: Harness;
let local: Harness;
let key: string;
let localKey: string;

before(async () => {
  ({ fake, h: stripe } = await startStripeHarness());
  key = await stripe.key();
  local = await startHarness();
  localKey = await local.key();
});
after(async () => {
  await stripe?.close();
  await local?.close();
  await fake?.stop();
});

async function deliver(ev: object) {
  const res = await deliverStripeEvent(stripe, ev);
  assert.equal(res.statusCode, 200, res.body);
}

const portal = (h: Harness, k: string, id: string) =>
  h.inject({ method: 'POST', url: `/api/v1/assistants/${id}/billing-portal`, headers: { 'x-api-key': k } });

/** purchase → the customer pays at Stripe → checkout.session.completed → activate → active. */
async function activeStripeSlot() {
  const res = await stripe.inject({
    method: 'POST',
    url: '/api/v1/assistants/purchase',
    headers: { 'x-api-key': key },
    payload: { apiMode: 'byok' },
  });
  const { deploymentId } = res.json().data;
  const sessionId = [...fake.sessions.values()].find((s) => s.client_reference_id === deploymentId).id;
  const { session, subscription } = fake.completeSession(sessionId);
  await deliver(fake.event('checkout.session.completed', session));
  assert.equal((await activate(stripe, key, deploymentId)).statusCode, 200);
  await stripe.runtime.idle();
  assert.equal((await getRecord(stripe, key, deploymentId)).status, 'active');
  return { deploymentId, subscription };
}

test("Stripe: Manage billing opens the Customer Portal of the subscription's customer, back to the slot's page", async () => {
  const { deploymentId, subscription } = await activeStripeSlot();
  const res = await portal(stripe, key, deploymentId);
  assert.equal(res.statusCode, 200, res.body);
  const { url } = res.json().data;
  assert.match(url, /^https:\/\/billing\.stripe\.com\/p\/session\/test_\w+$/);
  const asked = fake.requests.filter((r) => r.path === '/v1/billing_portal/sessions').at(-1)!;
  assert.equal(asked.method, 'POST');
  assert.equal(asked.params.customer, subscription.customer);
  assert.equal(asked.params.return_url, `http://berth.test/deployments/${deploymentId}`);
  assert.equal([...fake.portalSessions.values()].at(-1).url, url);

  // Not the owner's: 404, and no portal session for a stranger.
  const stranger = await stripe.key('stranger@example.com');
  const before = fake.portalSessions.size;
  assertError(await portal(stripe, stranger, deploymentId), 404, 'NOT_FOUND');
  assert.equal(fake.portalSessions.size, before);
  // Under Stripe the local cancellation is refused: the portal is where it happens.
  assertError(
    await stripe.inject({
      method: 'POST',
      url: `/api/v1/assistants/${deploymentId}/subscription/cancel`,
      headers: { 'x-api-key': key },
    }),
    409,
    'INVALID_STATE',
  );
});

test('Stripe: a cancellation in the portal reaches the subscription and the deployment by webhook', async () => {
  const { deploymentId, subscription } = await activeStripeSlot();
  // At the period's end (the portal's default): still paid and running, with the date it ends.
  const later = fake.cancelInPortal(subscription.id, { atPeriodEnd: true });
  await deliver(fake.event('customer.subscription.updated', later));
  let rec = await getRecord(stripe, key, deploymentId);
  assert.equal(rec.paymentStatus, 'paid');
  assert.equal(rec.status, 'active');
  assert.equal(rec.canceledAt, new Date(later.canceled_at * 1000).toISOString());

  // At once: canceled, and the assistant stops (its users' data kept).
  const now = fake.cancelInPortal(subscription.id, { atPeriodEnd: false });
  assert.equal(fake.subscriptions.get(subscription.id).status, 'canceled');
  await deliver(fake.event('customer.subscription.deleted', now));
  await stripe.runtime.idle();
  rec = await getRecord(stripe, key, deploymentId);
  assert.equal(rec.paymentStatus, 'canceled');
  assert.equal(rec.status, 'stopped');
  assert.match(rec.statusMessage, /subscription was canceled/);
});

test('an unpaid slot has no billing to manage: 409 with the step that pays it', async () => {
  const { deploymentId } = await purchase(local, localKey);
  const res = await portal(local, localKey, deploymentId);
  assertError(res, 409, 'INVALID_STATE');
  assert.match(res.json().error.message, /pay at its checkout first/);
});

test("local payments: the billing page is the dashboard's, and its cancellation stops the assistant as Stripe's would", async () => {
  const id = await activeDeployment(local, localKey);
  const res = await portal(local, localKey, id);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().data.url, `http://berth.test/deployments/${id}/billing`);
  const cancel = await local.inject({
    method: 'POST',
    url: `/api/v1/assistants/${id}/subscription/cancel`,
    headers: { 'x-api-key': localKey },
  });
  assert.equal(cancel.statusCode, 200, cancel.body);
  assert.equal(cancel.json().data.paymentStatus, 'canceled');
  await local.runtime.idle();
  const rec = await getRecord(local, localKey, id);
  assert.equal(rec.paymentStatus, 'canceled');
  assert.equal(rec.status, 'stopped');
  assert.match(rec.statusMessage, /subscription was canceled/);
  // Twice is harmless.
  assert.equal(
    (
      await local.inject({
        method: 'POST',
        url: `/api/v1/assistants/${id}/subscription/cancel`,
        headers: { 'x-api-key': localKey },
      })
    ).statusCode,
    200,
  );
});
