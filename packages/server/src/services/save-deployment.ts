import { AppError } from '../errors/app-error.js';
import type { Deployment } from '../domain/deployment.js';
import type { DeploymentPatch } from '../store/deployments.js';
import type { Services } from './context.js';

/**
 * Writes a patch guarded by the generation the caller read. Losing that race means another
 * request changed the deployment in between; the caller gets a 409 it can retry.
 */
export async function saveDeployment(s: Services, d: Deployment, patch: DeploymentPatch, opts: { bumpGeneration?: boolean } = {}): Promise<Deployment> {
  const saved = await s.deployments.update(d.id, d.generation, { ...patch, updatedAt: s.now().toISOString() }, opts);
  if (!saved) throw new AppError('INVALID_STATE', 'The deployment changed while this request was running; read it again and retry.');
  return saved;
}
