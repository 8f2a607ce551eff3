import { AppError } from '../platform/errors/app-error.js';
import type { Deployment } from '../domain/deployment.js';
import { chatTargetKey, type Services } from '../services.js';

/** Deletes the deployment's worker; 404 upstream counts as deleted, anything else is a 502. */
export type RemoveWorkerDeps = Pick<Services, 'workers' | 'log' | 'cache'>;

export async function removeWorker(s: RemoveWorkerDeps, d: Deployment, opts: { purge?: boolean } = {}): Promise<void> {
  try {
    await s.workers.deleteWorker(d.workerName, opts);
  } catch (err) {
    s.log.warn({ deploymentId: d.id, workerName: d.workerName, err: (err as Error).message }, 'worker deletion failed');
    throw new AppError(
      'WORKER_DELETE_FAILED',
      `Deleting worker ${d.workerName} failed (${(err as Error).message}); the deployment was left unchanged. Retry in a moment.`,
    );
  } finally {
    s.cache.targets.delete(chatTargetKey(d));
  }
}
