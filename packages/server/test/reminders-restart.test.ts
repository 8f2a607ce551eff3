// A reminder survives a kill -9 of the control plane (DESIGN §7.4): the local agent host goes with
// its control plane, the restarted one brings the assistant back on the same data dir, and the
// reminder asked for before the crash arrives once, on time. The host's clock is the test's
// (helpers/agent-clock.ts): the reminder is due an hour ahead, and the test moves the restarted host
// to just before it, so no restart is ever too slow for "on time" and nothing waits on the wall clock.
import { once } from 'node:events';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentClock } from './helpers/agent-clock.js';
import { callAs, settledStatus, startProcessRig, stopControlPlane } from './helpers/control-plane-process.js';

test('kill -9 of the control plane: the reminder asked before it arrives once, on time, after the restart', async () => {
  const clock = agentClock();
  const rig = await startProcessRig({
    email: 'remind-crash@example.com',
    tmpPrefix: 'berth-remind-crash-',
    env: { DEPLOY_TIMEOUT_SECONDS: '60', ...clock.env },
  });
  const { tg, provider } = rig;
  const bot = '7400000031:AAreminderSurvivesControlPlaneCrash_q';
  tg.addBot(bot);
  let cp = await rig.start();
  try {
    const call = callAs(rig.key, () => cp.url);
    const { id } = await rig.buyAndActivate(cp, 'Remind', bot);
    const waitActive = async () => assert.equal(await settledStatus(call, id, 60_000), 'active');
    await waitActive();

    const due = Date.now() + 3_600_000;
    // The second, a minute later, is the witness: once it is sent, a second send of the first
    // (sent before it, in the same chat) would have been too.
    const witnessDue = due + 60_000;
    provider.queue.push({
      toolCalls: [
        { name: 'schedule_message', arguments: { text: 'call the bank', at: new Date(due).toISOString() } },
        { name: 'schedule_message', arguments: { text: 'then the bakery', at: new Date(witnessDue).toISOString() } },
      ],
    });
    provider.queue.push({ content: 'Will do.' });
    tg.userSends(bot, 7501, { text: 'remind me to call the bank' });
    await tg.waitForSent((m) => m.chat_id === 7501 && m.text === 'Will do.', 15_000);

    const exited = once(cp.child, 'exit');
    cp.child.kill('SIGKILL');
    await exited;
    cp = await rig.start();
    await waitActive();
    // The status was active before the crash too: a reply is what says the new host runs the bot.
    tg.userSends(bot, 7501, { text: 'are you back?' });
    await tg.waitForSent((m) => m.chat_id === 7501 && m.text === 'You said: are you back?', 30_000);
    clock.moveTo(due - 1000);
    await tg.waitForSent((m) => m.chat_id === 7501 && m.text === '⏰ call the bank', 30_000);
    const lag = clock.now() - due;
    assert.ok(lag >= 0 && lag < 2000, `delivered ${lag} ms after its time`);
    clock.moveTo(witnessDue);
    await tg.waitForSent((m) => m.chat_id === 7501 && m.text === '⏰ then the bakery', 30_000);
    assert.equal(tg.sent.filter((m) => m.text === '⏰ call the bank').length, 1, 'once');
  } finally {
    await stopControlPlane(cp);
    await rig.close();
    clock.close();
  }
});
