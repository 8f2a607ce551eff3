// A reminder survives a kill -9 of the control plane (DESIGN §7.4): the local agent host goes with
// its control plane, the restarted one brings the assistant back on the same data dir, and the
// reminder asked for before the crash arrives once, on time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { MODEL_KEY } from './helpers/e2e.js';
import { callAs, settledStatus, startProcessRig, stopControlPlane } from './helpers/control-plane-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('kill -9 of the control plane: the reminder asked before it arrives once, on time, after the restart', async () => {
  const rig = await startProcessRig({
    email: 'remind-crash@example.com',
    tmpPrefix: 'berth-remind-crash-',
    env: { DEPLOY_TIMEOUT_SECONDS: '60' },
  });
  const { tg, provider } = rig;
  const bot = '7400000031:AAreminderSurvivesControlPlaneCrash_q';
  tg.addBot(bot);
  let cp = await rig.start();
  try {
    const call = callAs(rig.key, () => cp.url);
    const waitActive = async () => assert.equal(await settledStatus(call, id, 60_000), 'active');
    const { data } = await call('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
    const id = data.deploymentId as string;
    await request(`${cp.url}${new URL(data.checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) =>
      r.body.dump(),
    );
    await call('POST', `/api/v1/assistants/${id}/activate`, {
      name: 'Remind',
      modelProvider: 'fakeai',
      modelId: 'fake-model-1',
      messengerBotToken: bot,
      modelApiKey: MODEL_KEY,
    });
    await waitActive();

    const due = Date.now() + 45_000;
    provider.queue.push({
      toolCalls: [{ name: 'schedule_message', arguments: { text: 'call the bank', at: new Date(due).toISOString() } }],
    });
    provider.queue.push({ content: 'Will do.' });
    tg.userSends(bot, 7501, { text: 'remind me to call the bank' });
    await tg.waitForSent((m) => m.chat_id === 7501 && m.text === 'Will do.', 15_000);

    cp.child.kill('SIGKILL');
    await sleep(1000);
    cp = await rig.start();
    await waitActive();
    // On a loaded machine the restart itself may outlast the wait: then it is sent late, still once.
    const backInTime = Date.now() < due - 2000;
    await tg.waitForSent((m) => m.chat_id === 7501 && m.text === '⏰ call the bank', 90_000);
    const lag = Date.now() - due;
    if (backInTime) assert.ok(lag < 2000, `delivered ${lag} ms after its time`);
    await sleep(1500);
    assert.equal(tg.sent.filter((m) => m.text === '⏰ call the bank').length, 1, 'once');
  } finally {
    await stopControlPlane(cp);
    await rig.close();
  }
});
