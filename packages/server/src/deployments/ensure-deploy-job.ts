import type { Deployment } from '../domain/deployment.js';
import type { Services } from '../services.js';
import type { NewJob } from '../platform/store/jobs.js';

/**
 * A `deploying` deployment has a deploy job of its generation; queues one if that generation never
 * had one. Any job of the generation counts, finished ones too: a reconcile pass reads its page a
 * moment before it gets here, and the deploy may have finished (and its job with it) in between,
 * which must not start a second deploy of the same generation.
 */
export async function ensureDeployJob(s: Pick<Services, 'jobs' | 'now' | 'deployTimeoutMs'>, d: Deployment) {
  if (await s.jobs.existsFor(d.id, 'deploy', d.generation)) return false;
  await s.jobs.enqueue(deployJob(s, d));
  return true;
}

/** The deploy job of the deployment's current generation: it fails unless ready by the deadline. */
export function deployJob(
  s: Pick<Services, 'now' | 'deployTimeoutMs'>,
  d: Pick<Deployment, 'id' | 'generation'>,
): NewJob {
  return {
    kind: 'deploy',
    deploymentId: d.id,
    generation: d.generation,
    payload: { deadline: new Date(s.now().getTime() + s.deployTimeoutMs).toISOString() },
  };
}
