import type { Job } from '../platform/store/jobs.js';
import { backoff } from '../platform/jobs/backoff.js';
import type { JobOutcome } from '../platform/jobs/runner.js';
import { decideEvent } from '../domain/lifecycle.js';
import type { Services } from '../services.js';
import { removeWorker, type WorkerRemoval } from '../workers/index.js';
import { applyChange } from '../deployments/index.js';

export type StopJobDeps = Pick<
  Services,
  'transaction' | 'leases' | 'cache' | 'deployTimeoutMs' | 'deployments' | 'log' | 'now' | 'workers'
>;

/** Stops a deployment whose subscription ended; retried until the worker is gone. */
export async function runStopJob(s: StopJobDeps, job: Job<'stop'>): Promise<JobOutcome> {
  const d = await s.deployments.findById(job.deploymentId!);
  if (!d) return { done: true };
  const decision = decideEvent({ kind: 'subscription_canceled' }, d);
  if (!decision.ok || !decision.change) return { done: true };
  let removal: WorkerRemoval;
  try {
    // A stop like any other: the users' data (memory, reminders, a dedicated worker's claim) stays
    // until the owner deletes the assistant (0024, "A cancelled subscription keeps the data").
    removal = await removeWorker(s, d);
  } catch (err) {
    return {
      retryAt: new Date(s.now().getTime() + backoff(job.attempts, { baseMs: 2000, capMs: 300_000 })),
      error: (err as Error).message,
    };
  }
  const saved = await applyChange(
    s,
    d,
    decision.change,
    job.payload.reason ? { statusMessage: job.payload.reason } : {},
  ).finally(removal.end);
  if (!saved) return { retryAt: s.now(), error: 'the deployment changed meanwhile' };
  // A deploy whose createWorker was in flight may have finished after the first deletion.
  await s.workers.deleteWorker(d.workerName).catch(() => undefined);
  return { done: true };
}
