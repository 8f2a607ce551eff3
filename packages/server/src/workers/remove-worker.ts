import { randomBytes } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import type { Deployment } from '../domain/deployment.js';
import { chatTargetKey, type Services } from '../services.js';

export type RemoveWorkerDeps = Pick<Services, 'workers' | 'log' | 'cache' | 'leases' | 'now'>;

/**
 * A stop or delete removes the worker before it saves (a removal that fails leaves the deployment
 * as it was: WORKER_DELETE_FAILED), so for a moment an active deployment has no worker. A pass
 * that looked then would take it for vanished and start it again: a `deploying` between `active`
 * and `stopped`, and a deploy job, for nothing (CI saw it with two replicas). So each removal is
 * marked in the store, where every replica's passes see it, until its save is done: a lease row of
 * its own (a stop and a delete racing each have one; ending one leaves the other's), renewed while
 * it lasts (a Kubernetes removal is several calls of up to 30 s each). Short-lived, so that a
 * process that dies in between holds nothing back for long: its mark lapses within seconds, the
 * deployment still wants its worker, and the next pass starts it again (lifecycle-crash.test's
 * 45 s to converge after a SIGKILL failed with a minute's mark).
 */
const MARK_MS = 6_000;
export const REMOVAL_MARKS = 'worker-removal:';
const marksOf = (deploymentId: string) => `${REMOVAL_MARKS}${deploymentId}:`;

export interface WorkerRemoval {
  /** The save that follows is done (or failed): the mark goes. Never rejects. */
  end(): Promise<void>;
}

/** Deletes the deployment's worker; 404 upstream counts as deleted, anything else is a 502. */
export async function removeWorker(
  s: RemoveWorkerDeps,
  d: Deployment,
  { markMs = MARK_MS, ...opts }: { purge?: boolean; markMs?: number } = {},
): Promise<WorkerRemoval> {
  const leases = s.leases;
  // 15 + 36 + 1 + 8 characters: within the name column's 64.
  const mark = `${marksOf(d.id)}${randomBytes(4).toString('hex')}`;
  const take = () => leases.acquire(mark, mark, markMs, s.now().getTime());
  await take();
  const renewal = setInterval(
    () =>
      void take().catch((err) =>
        s.log.warn({ deploymentId: d.id, err: (err as Error).message }, 'renewing a worker removal mark failed'),
      ),
    markMs / 3,
  );
  renewal.unref();
  const end = () => {
    clearInterval(renewal);
    return leases
      .release(mark, mark)
      .catch((err) =>
        s.log.warn(
          { deploymentId: d.id, err: (err as Error).message },
          'clearing a worker removal mark failed; it lapses',
        ),
      );
  };
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

/**
 * The deployments whose workers a stop or delete is removing now, ahead of its save (see above):
 * one read of the live marks, a handful of rows.
 */
export async function removalsUnderway(s: Pick<Services, 'leases' | 'now'>): Promise<Set<string>> {
  const names = await s.leases.liveUnder(REMOVAL_MARKS, s.now().getTime());
  return new Set(names.map((n) => n.slice(REMOVAL_MARKS.length, n.lastIndexOf(':'))));
}
