import { randomUUID } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import type { Deployment } from '../domain/deployment.js';
import { LeaseRepo } from '../platform/store/leases.js';
import { chatTargetKey, type Services } from '../services.js';

export type RemoveWorkerDeps = Pick<Services, 'workers' | 'log' | 'cache' | 'db' | 'now'>;

/**
 * A stop or delete removes the worker before it saves (a removal that fails leaves the deployment
 * as it was: WORKER_DELETE_FAILED), so for a moment an active deployment has no worker. A pass
 * that looked then would take it for vanished and start it again: a `deploying` between `active`
 * and `stopped`, and a deploy job, for nothing (CI saw it with two replicas). So the removal is
 * marked in the store, where every replica's pass sees it, until the save is done. A process that
 * dies in between leaves the mark to lapse; the deployment still wants its worker then, and a pass
 * after that starts it again.
 */
const REMOVAL_MARK_MS = 60_000;
const markOf = (deploymentId: string) => `worker-removal:${deploymentId}`;

export interface WorkerRemoval {
  /** The save that follows is done (or failed): the mark goes. */
  end(): Promise<void>;
}

/** Deletes the deployment's worker; 404 upstream counts as deleted, anything else is a 502. */
export async function removeWorker(
  s: RemoveWorkerDeps,
  d: Deployment,
  opts: { purge?: boolean } = {},
): Promise<WorkerRemoval> {
  const leases = new LeaseRepo(s.db);
  const holder = randomUUID();
  // Not exclusive: a stop and a delete racing each mark it; either mark is enough for a pass.
  await leases.acquire(markOf(d.id), holder, REMOVAL_MARK_MS, s.now().getTime());
  const end = () =>
    leases
      .release(markOf(d.id), holder)
      .catch((err) =>
        s.log.warn(
          { deploymentId: d.id, err: (err as Error).message },
          'clearing a worker removal mark failed; it lapses',
        ),
      );
  try {
    await s.workers.deleteWorker(d.workerName, opts);
  } catch (err) {
    await end();
    s.log.warn({ deploymentId: d.id, workerName: d.workerName, err: (err as Error).message }, 'worker deletion failed');
    throw new AppError(
      'WORKER_DELETE_FAILED',
      `Deleting worker ${d.workerName} failed (${(err as Error).message}); the deployment was left unchanged. Retry in a moment.`,
    );
  } finally {
    s.cache.targets.delete(chatTargetKey(d));
  }
  return { end };
}

/** Whether a stop or delete is removing the deployment's worker ahead of its save (see above). */
export async function removalUnderway(s: Pick<Services, 'db' | 'now'>, deploymentId: string): Promise<boolean> {
  return (await new LeaseRepo(s.db).holder(markOf(deploymentId), s.now().getTime())) !== undefined;
}
