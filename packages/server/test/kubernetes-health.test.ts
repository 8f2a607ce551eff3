// Issue 57, finding 1, on WORKER_BACKEND=kubernetes: an active assistant whose bot another program
// polls (Telegram's 409 to getUpdates) shows it in statusMessage, and the message clears once the
// other program stops, in both placements: the shared agent hosts name their unwell agents at GET
// /troubles, each dedicated pod says it in its /health. The fake cluster's kubelet runs each pod as
// the real agent process; the health watch asks every 100 ms here (5 s by default).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubernetesE2E, type KubernetesE2E } from './helpers/fake-cluster.js';
import { until } from './helpers/until.js';

for (const placement of ['dedicated', 'shared'] as const) {
  describe(`kubernetes backend, ${placement} placement: an active assistant's health`, () => {
    const BOT =
      placement === 'shared'
        ? '7200000021:AAkubeHealthSharedBotTokenForTests_x'
        : '7200000022:AAkubeHealthDedicatedBotTokenForTest';
    let k: KubernetesE2E;

    before(async () => {
      // The status is read every 100 ms for up to 30 s: more than the default budget of a minute.
      k = await startKubernetesE2E(
        { KUBERNETES_PLACEMENT: placement, RATE_LIMIT_PER_MINUTE: '100000' },
        { healthWatchMs: 100 },
      );
      // Telegram may answer a long poll early: the agent learns the conflict is over when a poll
      // comes back whole, within a second here.
      k.e.tg.longPollCapMs = 1000;
      k.e.tg.addBot(BOT);
    });
    after(async () => {
      await k?.close();
    });

    /** The status view once `ok` holds of it; 30 s is the finding's bound. */
    const statusWhen = (id: string, what: string, ok: (s: any) => boolean) =>
      until(
        what,
        async () => {
          const s = (await k.e.api('GET', `/api/v1/assistants/${id}/status`)).json.data;
          return ok(s) ? s : undefined;
        },
        30_000,
        100,
      );

    test('another program polling the bot shows in the status, and clears when it stops', async () => {
      const id = await k.e.activate(BOT);
      const view = await k.e.waitForStatus(id, ['active', 'failed'], 60_000);
      assert.equal(view.status, 'active', view.statusMessage);
      assert.equal(view.statusMessage, null);

      k.e.tg.otherPollerStarts(BOT);
      const unwell = await statusWhen(id, 'the conflict in statusMessage', (s) => s.statusMessage !== null);
      assert.equal(unwell.status, 'active');
      assert.match(unwell.statusMessage, /Another program is polling this bot \(Telegram answered 409 Conflict/);

      k.e.tg.otherPollerStops(BOT);
      const well = await statusWhen(id, 'the message cleared', (s) => s.statusMessage === null);
      assert.equal(well.status, 'active');
    });
  });
}
