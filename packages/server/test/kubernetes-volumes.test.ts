// An agent's data outlives its pod (0024, "Data claims"): the control plane drives the official
// client against FakeKubernetes, whose kubelet runs each pod as the real agent process with /data
// on the pod's PersistentVolumeClaim (a directory here that outlives the pod). A dedicated worker's
// pod deleted without warning comes back with its user's memory and sends a pending reminder once;
// deleting the assistant deletes the claim.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FakeKubelet, FakeKubernetes } from '@berth/testkit';
import type { E2E } from './helpers/e2e.js';
import { KUBE_NS as NS, startKubernetesE2E, type KubernetesE2E } from './helpers/fake-cluster.js';
import { until as poll } from './helpers/until.js';
import { assertRemembersAda, leaveUserData, REMINDER } from './helpers/user-data.js';

const BOT = '7200000032:AAkubeVolumeBotTokenForClaimTests_xy';
let k: KubernetesE2E;
let api: FakeKubernetes;
let kubelet: FakeKubelet;
let e: E2E;

const until = <T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000) =>
  poll(what, fn, timeoutMs, 100);

before(async () => {
  k = await startKubernetesE2E({ KUBERNETES_PLACEMENT: 'dedicated', KUBERNETES_STORAGE_CLASS: 'fast-ssd' });
  ({ api, kubelet, e } = k);
  e.tg.addBot(BOT);
});
after(async () => {
  await k?.close();
});

test('a dedicated pod deleted without warning: memory and a pending reminder survive on its claim; a stop keeps it, a delete removes the claim', async () => {
  const id = await e.activate(BOT);
  assert.equal((await e.waitForStatus(id, ['active', 'failed'], 60_000)).status, 'active');
  const worker = `asst-${id.toLowerCase()}`;
  const claim = api.get('PersistentVolumeClaim', NS, `${worker}-data`);
  assert.ok(claim, 'the worker has a data claim');
  assert.equal(claim.spec.storageClassName, 'fast-ssd', 'the configured StorageClass');

  const due = await leaveUserData(e, BOT, 9401);

  // The node is lost: the pod goes, nobody asked the control plane; the Deployment replaces it.
  const first = await until('the pod to run', () => kubelet.running.find((p) => p.startsWith(worker)));
  assert.ok(api.remove('Pod', NS, first));
  const second = await until(
    'a replacement pod',
    () => kubelet.running.find((p) => p.startsWith(worker) && p !== first),
    40_000,
  );
  assert.ok(Date.now() < due, 'replaced before the reminder was due (else the test proves less)');

  await e.tg.waitForSent((m) => m.chat_id === 9401 && m.text === REMINDER, 40_000);
  assert.deepEqual(
    kubelet.running.filter((p) => p.startsWith(worker)),
    [second],
    'sent by the replacement pod, the only one running',
  );
  await new Promise((r) => setTimeout(r, 2000));
  assert.equal(e.tg.sent.filter((m) => m.text === REMINDER).length, 1, 'once');

  await assertRemembersAda(e, BOT, 9401, 'memory survived the pod');

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
