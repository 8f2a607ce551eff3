// The health watch of a backend every replica shares (Kubernetes: the same hosts and pods) runs on
// the reconciler's leader alone: N replicas would ask every dedicated pod N times a check and send
// the owner each change N times. A backend of the replica's own (the local agent host) is watched
// by every replica. Two control planes on one store, each with a fake backend that counts reads.
// And a cluster's worker that is not ready for a while keeps its message until it is well.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createLogger, createRuntime } from '../src/index.js';
import { FakeWorkers } from './helpers/fake-workers.js';
import { until } from './helpers/until.js';
import { startHarness } from './helpers/harness.js';
import { activeDeployment } from './helpers/api.js';
import { freshConfig } from './helpers/fresh-config.js';

async function twoReplicas(clusterWide: boolean, run: (a: FakeWorkers, b: FakeWorkers) => Promise<void>) {
  const { config, dataDir, db } = await freshConfig('berth-health-leader-', { LOG_LEVEL: 'silent' });
  const backends = [new FakeWorkers(), new FakeWorkers()] as const;
  for (const w of backends) w.clusterWide = clusterWide;
  const start = (workers: FakeWorkers) =>
    createRuntime(config, { workers, logger: createLogger('silent'), healthWatchMs: 50, reconcileIntervalMs: 1000 });
  const replicas = [await start(backends[0]), await start(backends[1])];
  try {
    await run(...backends);
  } finally {
    for (const r of replicas) await r.close().catch(() => {});
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('a cluster-wide backend is watched by one replica only', async () => {
  await twoReplicas(true, async (a, b) => {
    const leader = await until('one replica to watch', () =>
      a.troubleReads > 0 ? a : b.troubleReads > 0 ? b : undefined,
    );
    const other = leader === a ? b : a;
    const asked = other.troubleReads;
    const from = leader.troubleReads;
    await until('the leader to look ten times more', () => leader.troubleReads >= from + 10 || undefined);
    assert.equal(other.troubleReads, asked, 'the other replica does not ask the cluster');
  });
});

test("a replica's own backend is watched by every replica", async () => {
  await twoReplicas(false, async (a, b) => {
    await until('both replicas to look', () => (a.troubleReads >= 3 && b.troubleReads >= 3) || undefined);
  });
});

test("a cluster's worker that stops answering keeps its message, and it clears once the worker is well", async () => {
  const workers = new FakeWorkers();
  workers.clusterWide = true;
  const h = await startHarness({}, { workers, healthWatchMs: 50, reconcileIntervalMs: 200 });
  try {
    const id = await activeDeployment(h, await h.key());
    const { workerName } = (await h.runtime.services.deployments.findById(id))!;
    const message = () => h.runtime.services.deployments.findById(id).then((d) => d?.statusMessage);
    workers.troubles.set(workerName, 'Another program is polling this bot.');
    await until('the trouble shown', async () => (await message()) === 'Another program is polling this bot.');
    // Its host restarts: the trouble is no longer listed, and the worker is not ready meanwhile.
    workers.troubles.clear();
    workers.health = { ready: false, failed: false, reason: 'agent host 0 is not ready' };
    const reads = workers.troubleReads;
    await until('a few checks', () => workers.troubleReads >= reads + 5 || undefined);
    assert.equal(await message(), 'Another program is polling this bot.');
    workers.health = { ready: true, failed: false, reason: null };
    await until('the message cleared', async () => (await message()) === null);
  } finally {
    await h.close();
  }
});
