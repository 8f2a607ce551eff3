// An assistant's users' data outlives its agent-host pod (0024, "Data claims"): in the shared
// placement each agent-host pod mounts /data from the StatefulSet's volumeClaimTemplates claim.
// FakeKubernetes' kubelet runs the pod as the real agent process; when the pod is deleted without
// warning (eviction, node loss) its process ends and the StatefulSet's replacement starts on the
// same claim. The user's memory and a pending reminder survive: the reminder is sent once, by
// the new pod, and /memory still answers what was remembered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertNeverSent,
  assertSentOnce,
  NS,
  nextSent,
  rememberFact,
  scheduleReminder,
  agentsForFile,
  until,
} from './helpers/kubernetes-agents.js';

const BOT = '7200000033:AAkubeHostPodBotTokenForClaimTests_x';
const HOST = 'berth-agent-host-0';
const cluster = agentsForFile({ KUBERNETES_PLACEMENT: 'shared' }, BOT);

test('an agent-host pod deleted without warning: memory and a pending reminder survive on its claim; the new pod sends it once', async () => {
  const { api, kubelet, e } = cluster();
  const id = await e.activate(BOT);
  const view = await e.waitForStatus(id, ['active', 'failed'], 60_000);
  assert.equal(view.status, 'active', view.statusMessage);
  const worker = `asst-${id.toLowerCase()}`;
  assert.ok(kubelet.running.includes(HOST), 'it runs on the shared host');
  assert.ok(api.get('PersistentVolumeClaim', NS, `data-${HOST}`), "the host's data claim");

  assert.equal(await rememberFact(e, BOT, 9501, 'The user is called Grace.'), 'Noted.');
  const due = Date.now() + 15_000;
  assert.equal(await scheduleReminder(e, BOT, 9501, 'feed the cat', due), 'Reminder set.');

  // The pod goes, nobody asked the control plane; the StatefulSet starts `-0` again on its claim
  // and the reconciler puts the assistant back on it.
  const before = api.get('Pod', NS, HOST)!.metadata.uid;
  assert.ok(api.remove('Pod', NS, HOST));
  await until('the host pod to come back', () => {
    const pod = api.get('Pod', NS, HOST);
    return (pod && pod.metadata.uid !== before && kubelet.running.includes(HOST)) || undefined;
  });
  await until(
    'the assistant to be back on it',
    async () => (await e.runtime.services.workers.workerHealth(worker)).ready || undefined,
    40_000,
  );
  assert.ok(Date.now() < due, 'back before the reminder was due (else the test proves less)');

  const sent = await e.tg.waitForSent((m) => m.chat_id === 9501 && m.text === '⏰ feed the cat', 40_000);
  assert.ok(sent && Date.now() >= due - 500, 'not before it was due');
  assert.deepEqual(
    kubelet.running.filter((p) => p === HOST),
    [HOST],
    'sent by the replacement pod, the only one running',
  );
  await assertSentOnce(e, '⏰ feed the cat');

  const memory = nextSent(e, 9501);
  e.tg.userSends(BOT, 9501, { text: '/memory' });
  assert.match((await memory).text, /What I remember about you:\n• The user is called Grace\./);

  // Delete purges: a reminder still pending on the shared host's claim is never sent.
  const lastDue = Date.now() + 4000;
  assert.equal(await scheduleReminder(e, BOT, 9501, 'after delete', lastDue), 'Reminder set.');
  assert.equal((await e.api('DELETE', `/api/v1/assistants/${id}`)).status, 200);
  await e.runtime.idle();
  await assertNeverSent(e, '⏰ after delete', lastDue);
});
