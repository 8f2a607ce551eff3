// Alerts (DESIGN §7.5): a loopback receiver gets one alert per cause (a token FakeTelegram rejects
// fails the deploy), in Slack's shape or as a Standard Webhooks event, retried with the callbacks'
// schedule when it answers 500, and a receiver that hangs or fails never slows the service.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E } from './helpers/e2e.js';
import { startHarness } from './helpers/harness.js';
import { AlertReceiver } from './helpers/alert-receiver.js';
import { activate, purchase, pay } from './helpers/api.js';

const BAD_BOT = '7299999201:AAtokenThatTheFakeTelegramDoesNotKnow_a';

test('a token Telegram rejects: one Slack alert per cause, not one per failure', async () => {
  const receiver = await new AlertReceiver().start();
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
    await e.waitForStatus(id, ['failed']);
    await new Promise((r) => setTimeout(r, 300));
    await e.runtime.idle();
    assert.equal(receiver.received.length, 1);
    const failures = e.logs.filter((l) => l.includes('"deploy failed"')).length;
    assert.ok(failures >= 2, `two failures were seen (${failures}), one alert sent`);
  } finally {
    await e.close();
    await receiver.close();
  }
});

test('a receiver answering 500 gets the alert again on the retry schedule; standard format', async () => {
  const receiver = await new AlertReceiver().start();
  receiver.mode = 'fail';
  const h = await startHarness({ ALERT_WEBHOOK_URL: receiver.url, ALERT_WEBHOOK_FORMAT: 'standard' });
  try {
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
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('a receiver that hangs: the request and the other jobs go on, the alert job times out and retries', async () => {
  const receiver = await new AlertReceiver().start();
  receiver.mode = 'hang';
  const h = await startHarness({ ALERT_WEBHOOK_URL: receiver.url }, { alerts: { timeoutMs: 500 } });
  try {
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
    for (;;) {
      const res = await h.inject({
        method: 'GET',
        url: `/api/v1/assistants/${two.deploymentId}`,
        headers: { 'x-api-key': key },
      });
      if (res.json().data.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await receiver.waitFor(2);
    // The timed-out attempt is recorded as a retry, not a crash.
    for (;;) {
      const jobs = await h.runtime.store.db.selectFrom('jobs').selectAll().where('kind', '=', 'alert').execute();
      if (jobs.some((j) => j.last_error)) {
        assert.ok(
          jobs.every((j) => j.status === 'pending'),
          'still to be retried',
        );
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await h.close();
    await receiver.close();
  }
});
