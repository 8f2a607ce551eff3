// An assistant moved between Kubernetes placements takes its users' data along (0024, "Moving an
// assistant"): the control plane drives the official client against FakeKubernetes, a fake kubelet
// runs each pod as the real agent process with its own emptyDir. A user's memory and a pending
// reminder survive shared → dedicated; the reminder comes once, from the new pod only; a delete
// leaves no pod, no volume and sends nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FakeKubelet } from '@berth/testkit';
import type { E2E } from './helpers/e2e.js';
import { startKubernetesE2E, type KubernetesE2E } from './helpers/fake-cluster.js';
import { until as poll } from './helpers/until.js';
import { assertRemembersAda, leaveUserData, REMINDER } from './helpers/user-data.js';
import { WorkerPlacementRepo } from '../src/platform/store/worker-placements.js';

const BOT = '7200000031:AAkubeMoveBotTokenForTransferTests_x';
let k: KubernetesE2E;
let kubelet: FakeKubelet;
let e: E2E;

const until = <T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000) =>
  poll(what, fn, timeoutMs, 100);

before(async () => {
  k = await startKubernetesE2E({ KUBERNETES_PLACEMENT: 'shared' });
  ({ kubelet, e } = k);
  e.tg.addBot(BOT);
});
after(async () => {
  await k?.close();
});

test('shared → dedicated: memory and a pending reminder move; it is sent once, by the new pod; delete purges', async () => {
  const id = await e.activate(BOT);
  assert.equal((await e.waitForStatus(id, ['active', 'failed'], 60_000)).status, 'active');
  const worker = `asst-${id.toLowerCase()}`;

  const due = await leaveUserData(e, BOT, 9301);
  const hostPod = kubelet.running.find((p) => p.startsWith('berth-agent-host-'));
  assert.ok(hostPod, 'it runs on a shared host');

  // The operator moves it; the next deploy takes its data along.
  await new WorkerPlacementRepo(e.runtime.services.db).choose(worker, 'dedicated', new Date());
  assert.equal((await e.api('POST', `/api/v1/assistants/${id}/redeploy`)).status, 200);
  const view = await e.waitForStatus(id, ['active', 'failed'], 60_000);
  assert.equal(view.status, 'active', view.statusMessage);
  await until('the shared host to go', () => !kubelet.running.includes(hostPod) || undefined);
  assert.ok(Date.now() < due, 'moved before the reminder was due (else the test proves less)');

  const sent = await e.tg.waitForSent((m) => m.chat_id === 9301 && m.text === REMINDER, 40_000);
  assert.ok(sent);
  assert.ok(
    kubelet.running.every((p) => !p.startsWith('berth-agent-host-')),
    'only the new pod runs when it is sent',
  );
  await new Promise((r) => setTimeout(r, 2000));
  assert.equal(e.tg.sent.filter((m) => m.text === REMINDER).length, 1, 'once');

  await assertRemembersAda(e, BOT, 9301, 'memory moved');

  // Delete: a reminder still pending is never sent, and no pod is left (its emptyDir goes with it).
  e.provider.queue.push({
    toolCalls: [
      { name: 'schedule_message', arguments: { text: 'after delete', at: new Date(Date.now() + 4000).toISOString() } },
    ],
  });
  e.provider.queue.push({ content: 'Set again.' });
  e.tg.userSends(BOT, 9301, { text: 'one more' });
  await e.tg.waitForSent((m) => m.chat_id === 9301 && m.text === 'Set again.');
  assert.equal((await e.api('DELETE', `/api/v1/assistants/${id}`)).status, 200);
  await e.runtime.idle();
  await until('pods to end', () => kubelet.running.length === 0 || undefined);
  await new Promise((r) => setTimeout(r, 5000));
  assert.equal(e.tg.sent.filter((m) => m.text === '⏰ after delete').length, 0);
});
