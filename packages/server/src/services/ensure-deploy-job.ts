import type { Deployment } from '../domain/deployment.js';
import type { Services } from './context.js';

/** A `deploying` deployment has a deploy job of its generation; queues one if none is pending. */
export async function ensureDeployJob(s: Pick<Services, 'jobs' | 'now' | 'deployTimeoutMs'>, d: Deployment) {
  const pending = await s.jobs.pendingFor(d.id, 'deploy');
  if (pending.some((j) => Number(j.generation) === d.generation)) return false;
  await s.jobs.enqueue({
    kind: 'deploy',
    deploymentId: d.id,
    generation: d.generation,
    payload: { deadline: new Date(s.now().getTime() + s.deployTimeoutMs).toISOString() },
  });
  return true;
}
