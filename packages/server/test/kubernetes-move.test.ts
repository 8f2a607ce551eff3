// An assistant moved between Kubernetes placements takes its users' data along (0024, "Moving an
// assistant"): the control plane drives the official client against FakeKubernetes, a fake kubelet
// runs each pod as the real agent process with its own emptyDir. A user's memory and a pending
// reminder survive shared → dedicated; the reminder comes once, from the new pod only; a delete
// leaves no pod, no volume and sends nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  agentsForFile,
  assertNeverSent,
  dataSurvived,
  leaveData,
  scheduleReminder,
  until,
} from './helpers/kubernetes-agents.js';

const BOT = '7200000031:AAkubeMoveBotTokenForTransferTests_x';
const cluster = agentsForFile({ KUBERNETES_PLACEMENT: 'shared' }, BOT);

test('shared → dedicated: memory and a pending reminder move; it is sent once, by the new pod; delete purges', async () => {
  const { kubelet, e } = cluster();
  const id = await e.activate(BOT);
  assert.equal((await e.waitForStatus(id, ['active', 'failed'], 60_000)).status, 'active');
  const worker = `asst-${id.toLowerCase()}`;

  const left = await leaveData(e, BOT, 9301, 'The user is called Ada.', 'water the plants');
  const hostPod = kubelet.running.find((p) => p.startsWith('berth-agent-host-'));
  assert.ok(hostPod, 'it runs on a shared host');

  // The operator moves it; the next deploy takes its data along.
  await e.runtime.store.repos.placements.choose(worker, 'dedicated', new Date());
  assert.equal((await e.api('POST', `/api/v1/assistants/${id}/redeploy`)).status, 200);
  const view = await e.waitForStatus(id, ['active', 'failed'], 60_000);
  assert.equal(view.status, 'active', view.statusMessage);
  await until('the shared host to go', () => !kubelet.running.includes(hostPod) || undefined);
  assert.ok(Date.now() < left.due, 'moved before the reminder was due (else the test proves less)');

  const sent = await e.tg.waitForSent((m) => m.chat_id === 9301 && m.text === '⏰ water the plants', 40_000);
  assert.ok(sent);
  assert.ok(
    kubelet.running.every((p) => !p.startsWith('berth-agent-host-')),
    'only the new pod runs when it is sent',
  );
  await dataSurvived(e, left, 'memory moved');

  // Delete: a reminder still pending is never sent, and no pod is left (its emptyDir goes with it).
  const lastDue = Date.now() + 4000;
  assert.equal(await scheduleReminder(e, BOT, 9301, 'after delete', lastDue), 'Reminder set.');
  assert.equal((await e.api('DELETE', `/api/v1/assistants/${id}`)).status, 200);
  await e.runtime.idle();
  await until('pods to end', () => kubelet.running.length === 0 || undefined);
  await assertNeverSent(e, '⏰ after delete', lastDue);
});
