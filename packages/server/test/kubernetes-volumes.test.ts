// An agent's data outlives its pod (0024, "Data claims"): the control plane drives the official
// client against FakeKubernetes, whose kubelet runs each pod as the real agent process with /data
// on the pod's PersistentVolumeClaim (a directory here that outlives the pod). A dedicated worker's
// pod deleted without warning comes back with its user's memory and sends a pending reminder once;
// deleting the assistant deletes the claim, and so does the reconciler removing a deleted
// assistant's left-behind worker (a stopped one's claim stays).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '@berth/contracts/settings';
import { agentsForFile, dataSurvived, leaveData, NS, until } from './helpers/kubernetes-agents.js';
import { reconcilePass } from '../src/reconciler/reconcile-pass.js';
import { DesiredIndex } from '../src/reconciler/desired-index.js';
import { buildWorkerSpec } from '../src/workers/spec.js';

const BOT = '7200000032:AAkubeVolumeBotTokenForClaimTests_xy';
const cluster = agentsForFile({ KUBERNETES_PLACEMENT: 'dedicated', KUBERNETES_STORAGE_CLASS: 'fast-ssd' }, BOT);

test('a dedicated pod deleted without warning: memory and a pending reminder survive on its claim; a stop keeps it, a delete removes the claim', async () => {
  const { api, kubelet, e } = cluster();
  const id = await e.activate(BOT);
  assert.equal((await e.waitForStatus(id, ['active', 'failed'], 60_000)).status, 'active');
  const worker = `asst-${id.toLowerCase()}`;
  const claim = api.get('PersistentVolumeClaim', NS, `${worker}-data`);
  assert.ok(claim, 'the worker has a data claim');
  assert.equal(claim.spec.storageClassName, 'fast-ssd', 'the configured StorageClass');

  const left = await leaveData(e, BOT, 9401, 'The user is called Ada.', 'water the plants');

  // The node is lost: the pod goes, nobody asked the control plane; the Deployment replaces it.
  const first = await until('the pod to run', () => kubelet.running.find((p) => p.startsWith(worker)));
  assert.ok(api.remove('Pod', NS, first));
  const second = await until(
    'a replacement pod',
    () => kubelet.running.find((p) => p.startsWith(worker) && p !== first),
    40_000,
  );
  assert.ok(Date.now() < left.due, 'replaced before the reminder was due (else the test proves less)');

  await e.tg.waitForSent((m) => m.chat_id === 9401 && m.text === '⏰ water the plants', 40_000);
  assert.deepEqual(
    kubelet.running.filter((p) => p.startsWith(worker)),
    [second],
    'sent by the replacement pod, the only one running',
  );
  await dataSurvived(e, left, 'memory survived the pod');

  // A stop removes the pod, not the data: the claim stays for the next start.
  assert.equal((await e.api('POST', `/api/v1/assistants/${id}/stop`)).status, 200);
  await e.waitForStatus(id, ['stopped'], 30_000);
  await until('the pod to end', () => !kubelet.running.some((p) => p.startsWith(worker)) || undefined);
  assert.ok(api.get('PersistentVolumeClaim', NS, `${worker}-data`), 'a stop keeps the claim');

  // Delete purges: the claim (and the volume behind it) goes with the assistant.
  assert.equal((await e.api('DELETE', `/api/v1/assistants/${id}`)).status, 200);
  await e.runtime.idle();
  await until('pods to end', () => kubelet.running.length === 0 || undefined);
  assert.equal(api.get('PersistentVolumeClaim', NS, `${worker}-data`), undefined, 'the claim is deleted');
  assert.deepEqual(api.list('PersistentVolumeClaim', NS), []);
});

test("the reconciler's orphans: a deleted assistant's left-behind worker goes with its claim; a stopped one's worker goes, its claim stays", async () => {
  const { api, e } = cluster();
  const s = e.runtime.services;
  const STOPPED = '7200000034:AAkubeOrphanStoppedBotTokenForTest_x';
  const DELETED = '7200000035:AAkubeOrphanDeletedBotTokenForTest_x';
  e.tg.addBot(STOPPED);
  e.tg.addBot(DELETED);
  const stopped = await e.activate(STOPPED);
  const deleted = await e.activate(DELETED);
  for (const id of [stopped, deleted])
    assert.equal((await e.waitForStatus(id, ['active', 'failed'], 60_000)).status, 'active');
  assert.equal((await e.api('POST', `/api/v1/assistants/${stopped}/stop`)).status, 200);
  await e.waitForStatus(stopped, ['stopped'], 30_000);
  const gone = (await s.deployments.findById(deleted))!;
  assert.equal((await e.api('DELETE', `/api/v1/assistants/${deleted}`)).status, 200);
  await e.runtime.idle();
  const stoppedClaim = `asst-${stopped.toLowerCase()}-data`;
  const deletedClaim = `asst-${deleted.toLowerCase()}-data`;
  assert.ok(api.get('PersistentVolumeClaim', NS, stoppedClaim));
  assert.equal(api.get('PersistentVolumeClaim', NS, deletedClaim), undefined);

  // A deploy that was inside createWorker when the stop or the delete landed finishes after it:
  // each leaves a worker (and, for the deleted one, a claim created again) nobody wants.
  const d = (await s.deployments.findById(stopped))!;
  await s.workers.createWorker(buildWorkerSpec(s, { ...d, status: 'active' }, defaultSettings()));
  await s.workers.createWorker(buildWorkerSpec(s, gone, defaultSettings()));
  assert.ok(api.get('PersistentVolumeClaim', NS, deletedClaim), 'the orphan has a claim of its own');

  await reconcilePass(s, new DesiredIndex(), { restore: true });
  await until('the orphans to go', async () => (await s.workers.listWorkers()).names.length === 0 || undefined);
  assert.equal(api.get('PersistentVolumeClaim', NS, deletedClaim), undefined, "the deleted one's claim is gone");
  assert.ok(api.get('PersistentVolumeClaim', NS, stoppedClaim), "the stopped one's claim stays for its next start");
  assert.equal((await s.deployments.findById(stopped))!.status, 'stopped', 'the record is untouched');
});
