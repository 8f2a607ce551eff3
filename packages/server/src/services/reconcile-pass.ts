// One pass of the level-triggered reconciler: what the store wants next to what the workers
// backend runs. Active assistants whose worker is gone go back to `deploying` (through the state
// machine, with a deploy job); `deploying` ones get a deploy job if none is pending; a worker no
// live deployment wants (the orphan of a stop or delete racing a deploy, a failed deploy's worker)
// is deleted. Reads the store before listing workers, so a worker created by a deploy job that
// has just marked its deployment active is always in the list.
import { wantsWorker } from '../domain/lifecycle.js';
import { restartVanished } from './restart-vanished.js';
import { ensureDeployJob } from './ensure-deploy-job.js';
import type { Services } from './context.js';

export interface PassCounts {
  vanished: number;
  resumed: number;
  removed: number;
}

export async function reconcilePass(s: Services): Promise<PassCounts> {
  const counts: PassCounts = { vanished: 0, resumed: 0, removed: 0 };
  const live = await s.deployments.listWantingWorkers();
  const observed = new Set(await s.workers.listWorkers());
  for (const d of live) {
    if (d.status === 'deploying') {
      if (await ensureDeployJob(s, d)) counts.resumed++;
      continue;
    }
    if (observed.has(d.workerName)) continue;
    if (await restartVanished(s, d, 'it was no longer running')) counts.vanished++;
  }
  const wanted = new Set(live.map((d) => d.workerName));
  for (const name of observed) {
    if (wanted.has(name)) continue;
    // Read again: a deploy may have started after the list of live deployments was taken.
    const d = await s.deployments.findById(name.replace(/^asst-/, ''));
    if (d && wantsWorker(d.desired)) continue;
    try {
      await s.workers.deleteWorker(name);
      counts.removed++;
    } catch (err) {
      s.log.warn({ worker: name, err: (err as Error).message }, 'removing a worker nobody wants failed');
    }
  }
  if (counts.vanished || counts.resumed || counts.removed) s.log.info(counts, 'workers reconciled');
  return counts;
}
