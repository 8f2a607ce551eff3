import type { Job } from '../jobs/queue.js';
import type { JobOutcome } from '../jobs/runner.js';
import type { Services } from './context.js';
import { removeWorker } from './remove-worker.js';
import { saveDeployment } from './save-deployment.js';

/** Stops a deployment whose subscription ended; retried until the worker is gone. */
export async function runStopJob(s: Services, job: Job): Promise<JobOutcome> {
  const d = await s.deployments.findById(job.deploymentId!);
  if (!d || d.status === 'stopped') return { done: true };
  try {
    await removeWorker(s, d);
  } catch (err) {
    return { retryAt: new Date(s.now().getTime() + Math.min(300_000, 2000 * 2 ** job.attempts)), error: (err as Error).message };
  }
  const saved = await saveDeployment(s, d, { status: 'stopped', statusMessage: job.payload.reason, workerUrl: null }, { bumpGeneration: true, quiet: true });
  return saved ? { done: true } : { retryAt: s.now(), error: 'the deployment changed meanwhile' };
}
