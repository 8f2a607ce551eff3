// Makes the worker backend match the store at once: every `active` deployment's worker created
// (again), every `deploying` one with a deploy job, and nothing else. Runs at start-up and when
// the local agent host was restarted (its workers are all gone then); between those, the
// continuous reconciler (reconciler.ts) notices what changes behind Berth's back.
import { DeploymentRepo } from '../store/deployments.js';
import type { Services } from './context.js';
import { buildWorkerSpec } from '../workers/spec.js';
import { saveDeployment } from './save-deployment.js';
import { restartVanished } from './restart-vanished.js';
import { ensureDeployJob } from './ensure-deploy-job.js';
import { currentSettings } from './settings/current-settings.js';

export async function reconcileWorkers(
  s: Services,
): Promise<{ started: number; resumed: number; removed: number; failed: number }> {
  const counts = { started: 0, resumed: 0, removed: 0, failed: 0 };
  const live = await new DeploymentRepo(s.db).listWantingWorkers();
  const wanted = new Set(live.map((d) => d.workerName));
  for (const d of live) {
    if (d.status === 'deploying') {
      if (await ensureDeployJob(s, d)) counts.resumed++;
      continue;
    }
    try {
      const { workerUrl } = await s.workers.createWorker(buildWorkerSpec(s, d, (await currentSettings(s, d)).settings));
      if (workerUrl !== d.workerUrl) await saveDeployment(s, d, { workerUrl }, { quiet: true });
      counts.started++;
    } catch (err) {
      // A host that is coming back (a restarted pod, a restarting agent host) refuses for a moment.
      counts.failed++;
      await restartVanished(s, d, `it could not be started again at once (${(err as Error).message})`);
    }
  }
  for (const name of await s.workers.listWorkers()) {
    if (!wanted.has(name)) {
      await s.workers
        .deleteWorker(name)
        .catch((err) => s.log.warn({ worker: name, err: (err as Error).message }, 'removing a stray worker failed'));
      counts.removed++;
    }
  }
  s.log.info(counts, 'workers reconciled');
  return counts;
}
