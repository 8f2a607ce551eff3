// The operator's view and hand (DESIGN §7.5): `admin deployments list|suspend|resume`, `admin
// usage`, `admin users list`, run as the CLI against a serving control plane. A suspended bot stops
// polling Telegram (the reconciler enforces the desired state), its owner's redeploy and update
// answer 409 saying so, and only resume lifts it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, activeBot } from './helpers/e2e.js';
import { TEST_SECRETS_KEY } from './helpers/database.js';
import { runBerth } from './helpers/cli.js';
import { until } from './helpers/until.js';

const BOT = '7200000401:AAoperatorFakeBotTokenForControlPlane';

test('suspend stops the bot and refuses the owner; resume lifts it; list, usage and users', async () => {
  const e = await startE2E({}, { reconcileIntervalMs: 300 });
  const env = {
    ...process.env,
    DATA_DIR: e.dataDir,
    ...(e.databaseUrl ? { DATABASE_URL: e.databaseUrl, SECRETS_KEY: TEST_SECRETS_KEY } : {}),
  };
  const berth = (...args: string[]) => runBerth(['admin', ...args], { env });
  try {
    const id = await activeBot(e, BOT);
    e.tg.userSends(BOT, 9101, { text: 'before' });
    await e.tg.waitForSent((m) => m.chat_id === 9101 && /before/.test(m.text));

    const suspended = await berth('deployments', 'suspend', id, '--reason', 'spam complaints');
    assert.equal(suspended.status, 0, suspended.stderr);
    assert.match(suspended.stdout, new RegExp(`${id}: stopped \\(Suspended by the operator: spam complaints\\)`));
    const view = await e.waitForStatus(id, ['stopped']);
    assert.equal(view.statusMessage, 'Suspended by the operator: spam complaints');

    // The reconciler removes the worker: the bot stops polling FakeTelegram.
    await until('the suspended bot to stop polling', () => e.tg.activePolls(BOT) === 0 || undefined, 20_000);
    const polls = e.tg.polls(BOT);
    e.tg.userSends(BOT, 9101, { text: 'while suspended' });
    // Two more reconcile passes (300 ms apart): one that brought the worker back would have by now.
    const passes = e.runtime.reconciler.passes;
    await until('two reconcile passes', () => e.runtime.reconciler.passes >= passes + 2 || undefined);
    assert.equal(e.tg.polls(BOT), polls, 'no getUpdates while suspended');
    assert.equal(e.tg.sent.filter((m) => /while suspended/.test(m.text)).length, 0);

    // The owner cannot lift it.
    for (const [method, path, body] of [
      ['POST', `/api/v1/assistants/${id}/redeploy`, undefined],
      ['PATCH', `/api/v1/assistants/${id}`, { name: 'Renamed' }],
    ] as const) {
      const res = await e.api(method, path, body);
      assert.equal(res.status, 409, res.text);
      assert.equal(res.json.error.code, 'INVALID_STATE');
      assert.match(res.json.error.message, /Suspended by the operator: spam complaints/);
    }
    // Stopping again keeps the operator's message.
    assert.equal((await e.api('POST', `/api/v1/assistants/${id}/stop`)).status, 200);
    assert.equal((await e.waitForStatus(id, ['stopped'])).statusMessage, 'Suspended by the operator: spam complaints');

    const listed = await berth('deployments', 'list', '--status', 'stopped', '--json');
    assert.equal(listed.status, 0, listed.stderr);
    const rows = JSON.parse(listed.stdout);
    assert.deepEqual(
      rows.map((r: { id: string; suspendedReason: string }) => [r.id, r.suspendedReason]),
      [[id, 'spam complaints']],
    );
    assert.equal(JSON.parse((await berth('deployments', 'list', '--status', 'active', '--json')).stdout).length, 0);

    const resumed = await berth('deployments', 'resume', id);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.equal((await e.waitForStatus(id, ['active', 'failed'], 30_000)).status, 'active');
    // Polling again: the message sent meanwhile is answered now, once.
    await e.tg.waitForSent((m) => m.chat_id === 9101 && /while suspended/.test(m.text), 30_000);
    assert.match((await berth('deployments', 'resume', id)).stderr, /not suspended/);

    // A metered chat through the API (byok Telegram replies are not metered yet: see the report).
    const chat = await e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
      model: 'assistant-agent',
      messages: [{ role: 'user', content: 'hello' }],
    });
    assert.equal(chat.status, 200, chat.text);
    await e.runtime.services.billing.settles.flush();
    const month = new Date().toISOString().slice(0, 7);
    const usage = await berth('usage', '--month', month, '--json');
    assert.equal(usage.status, 0, usage.stderr);
    const report = JSON.parse(usage.stdout);
    const mine = report.deployments.find((r: { deploymentId: string }) => r.deploymentId === id);
    assert.ok(mine, usage.stdout);
    assert.ok(mine.replies >= 1 && mine.costUsd > 0, usage.stdout);
    assert.equal(report.owners.length, 1);
    assert.match((await berth('usage', '--month', '2026-13')).stderr, /YYYY-MM/);

    const users = await berth('users', 'list', '--json');
    assert.equal(users.status, 0, users.stderr);
    assert.deepEqual(
      JSON.parse(users.stdout).map((u: { deployments: number }) => u.deployments),
      [1],
    );
  } finally {
    await e.close();
  }
});
