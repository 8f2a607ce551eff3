// Alerts (DESIGN §7.5): a loopback receiver gets one alert per cause (a token FakeTelegram rejects
// fails the deploy), in Slack's shape or as a Standard Webhooks event, retried with the callbacks'
// schedule when it answers 500, and a receiver that hangs or fails never slows the service.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E } from './helpers/e2e.js';
import { harnessFor, startHarness } from './helpers/harness.js';
import { writeCatalog } from './helpers/catalog.js';
import { alertReceiverFor } from './helpers/alert-receiver.js';
import { activate, purchase, pay } from './helpers/api.js';
import { FakeModelProvider } from '@berth/testkit';
import { until } from './helpers/until.js';
import { stopAfter } from './helpers/stop-all.js';

const BAD_BOT = '7299999201:AAtokenThatTheFakeTelegramDoesNotKnow_a';

test('a token Telegram rejects: one Slack alert per cause, not one per failure', async (t) => {
  const receiver = await alertReceiverFor(t);
  const e = await startE2E({ ALERT_WEBHOOK_URL: receiver.url, ALERT_WEBHOOK_FORMAT: 'slack' });
  try {
    const id = await e.activate(BAD_BOT);
    assert.equal((await e.waitForStatus(id, ['active', 'failed'])).status, 'failed');
    const [first] = await receiver.waitFor(1);
    assert.deepEqual(Object.keys(first!.body), ['text']);
    assert.match(
      first!.body.text,
      new RegExp(`deploy_failed.*Deployment ${id} failed: Telegram rejected the bot token`),
    );
    assert.ok(!first!.body.text.includes(BAD_BOT), 'the bot token is not in the alert');
    assert.match(String(first!.headers['webhook-id']), /^alert_/);

    // The same cause again (a redeploy that fails the same way): no second alert.
    const again = await e.api('POST', `/api/v1/assistants/${id}/redeploy`);
    assert.equal(again.status, 200, again.text);
    // The status was failed already: the second failure is in the log.
    const failed = () => e.logs.filter((l) => l.includes('"deploy failed"')).length;
    await until('the second failure', () => failed() >= 2 || undefined);
    await e.runtime.idle();
    assert.equal(receiver.received.length, 1);
    assert.ok(failed() >= 2, `two failures were seen (${failed()}), one alert sent`);
  } finally {
    await e.close();
  }
});

test('a receiver answering 500 gets the alert again on the retry schedule; standard format', async (t) => {
  const receiver = await alertReceiverFor(t, 'fail');
  const h = await harnessFor(t, { ALERT_WEBHOOK_URL: receiver.url, ALERT_WEBHOOK_FORMAT: 'standard' });
  h.workers.createFailure = 'the workers backend refused the worker';
  const key = await h.key();
  const { deploymentId, checkoutUrl } = await purchase(h, key);
  await pay(h, checkoutUrl);
  assert.equal((await activate(h, key, deploymentId)).statusCode, 200);
  const [first] = await receiver.waitFor(1);
  // The service answers while the receiver fails.
  assert.equal(
    (await h.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': key } })).statusCode,
    200,
  );
  receiver.mode = 'ok';
  // The first retry of the callbacks' schedule comes 5 s later, with the same message id.
  const [, second] = await receiver.waitFor(2, 30_000);
  assert.equal(second!.headers['webhook-id'], first!.headers['webhook-id']);
  assert.deepEqual(second!.body, first!.body);
  assert.equal(first!.body.type, 'berth.alert.deploy_failed');
  assert.equal(first!.body.data.cause, `deploy_failed:${deploymentId}`);
  assert.match(first!.body.data.message, /the workers backend refused the worker/);
  assert.ok(Date.parse(first!.body.timestamp) > 0);
});

test('a receiver that hangs: the request and the other jobs go on, the alert job times out and retries', async (t) => {
  const receiver = await alertReceiverFor(t, 'hang');
  const h = await harnessFor(t, { ALERT_WEBHOOK_URL: receiver.url }, { alerts: { timeoutMs: 500 } });
  h.workers.createFailure = 'refused';
  const key = await h.key();
  const one = await purchase(h, key);
  await pay(h, one.checkoutUrl);
  assert.equal((await activate(h, key, one.deploymentId)).statusCode, 200);
  await receiver.waitFor(1);
  // While the receiver holds the alert's connection: a new deploy still runs and fails (jobs go on).
  const two = await purchase(h, key);
  await pay(h, two.checkoutUrl);
  assert.equal((await activate(h, key, two.deploymentId)).statusCode, 200);
  await until('the second deployment failed', async () => {
    const res = await h.inject({
      method: 'GET',
      url: `/api/v1/assistants/${two.deploymentId}`,
      headers: { 'x-api-key': key },
    });
    return res.json().data.status === 'failed' || undefined;
  });
  await receiver.waitFor(2);
  // The timed-out attempt is recorded as a retry, not a crash.
  const jobs = await until('the timed-out attempt recorded', async () => {
    const all = await h.runtime.store.db.selectFrom('jobs').selectAll().where('kind', '=', 'alert').execute();
    return all.some((j) => j.last_error) ? all : undefined;
  });
  assert.ok(
    jobs.every((j) => j.status === 'pending'),
    'still to be retried',
  );
});

const ROUTER_KEY = 'sk-or-operator-credit-check-0123456789';

/** A router (FakeModelProvider with OpenRouter's /credits) as the managed provider. */
async function routerCatalog(router: FakeModelProvider): Promise<string> {
  const pricing = { prompt: 1, completion: 2 };
  return writeCatalog([{ id: 'openrouter', baseUrl: router.url, models: [{ id: 'openai/gpt-4o-mini', pricing }] }]);
}

test('low router credit: one alert per cause while the balance stays low, none above the threshold', async (t) => {
  const receiver = await alertReceiverFor(t);
  const router = await new FakeModelProvider().start();
  stopAfter(t, () => router.stop());
  router.apiKeys.add(ROUTER_KEY);
  router.credits = { total_credits: 50, total_usage: 10 }; // $40 left
  const env = {
    ALERT_WEBHOOK_URL: receiver.url,
    ALERT_WEBHOOK_FORMAT: 'standard',
    ALERT_LOW_CREDIT_USD: '25',
    MODEL_CATALOG: await routerCatalog(router),
    MANAGED_PROVIDER_API_KEY: ROUTER_KEY,
  };
  const h = await harnessFor(t, env, { alerts: { creditIntervalMs: 50 } });
  // Above the threshold: checked (with the operator's key), nothing sent.
  await until('three credit checks', () => router.creditChecks >= 3 || undefined);
  await h.runtime.idle();
  assert.equal(receiver.received.length, 0);
  // The balance drops below $25: one alert, however many checks (and replicas) see it.
  router.credits = { total_credits: 50, total_usage: 42.5 };
  const [alert] = await receiver.waitFor(1);
  assert.equal(alert!.body.type, 'berth.alert.low_credit');
  assert.equal(alert!.body.data.cause, 'low_credit:openrouter');
  assert.match(alert!.body.data.message, /openrouter has \$7\.50 of credit left \(alert below \$25\.00\)/);
  assert.ok(!JSON.stringify(alert!.body).includes(ROUTER_KEY), 'the key is not in the alert');
  const seen = router.creditChecks;
  // Checks go on and keep seeing the low balance: still one alert (claimed per cause in the store).
  await until('five more credit checks', () => router.creditChecks >= seen + 5 || undefined);
  await h.runtime.idle();
  assert.equal(receiver.received.length, 1);
  assert.ok(!h.logs.some((l) => l.includes(ROUTER_KEY)), 'the key is not logged');
});

test('low router credit: a provider without /credits is told once in the log and not asked again; a rejected key is logged', async (t) => {
  const receiver = await alertReceiverFor(t);
  const router = await new FakeModelProvider().start(); // no `credits`: GET /credits is a 404
  stopAfter(t, () => router.stop());
  const env = {
    ALERT_WEBHOOK_URL: receiver.url,
    ALERT_LOW_CREDIT_USD: '25',
    MODEL_CATALOG: await routerCatalog(router),
    MANAGED_PROVIDER_API_KEY: ROUTER_KEY,
  };
  const h = await startHarness(env, { alerts: { creditIntervalMs: 30 } });
  try {
    await until(
      'the missing endpoint logged',
      () => h.logs.some((l) => l.includes('no credits endpoint')) || undefined,
    );
    // Waits on the wall clock: about seven check intervals (30 ms), in which a checker that asked
    // again would log again; a check it skips leaves no event to wait for.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(h.logs.filter((l) => l.includes('no credits endpoint')).length, 1, 'told once, then not asked again');
    assert.equal(receiver.received.length, 0);
  } finally {
    await h.close();
  }
  // The endpoint exists but the key is refused (401): a warning per check, no alert, no key in the log.
  router.credits = { total_credits: 1, total_usage: 1 };
  const h2 = await startHarness(
    { ...env, MANAGED_PROVIDER_API_KEY: 'sk-or-not-the-operators-key-000000' },
    { alerts: { creditIntervalMs: 30 } },
  );
  try {
    await until('the refused check logged', () => h2.logs.some((l) => l.includes('credit check failed')) || undefined);
    assert.match(h2.logs.find((l) => l.includes('credit check failed'))!, /the provider answered 401/);
    assert.equal(receiver.received.length, 0);
    assert.ok(!h2.logs.some((l) => l.includes('sk-or-not-the-operators-key')));
  } finally {
    await h2.close();
  }
});
