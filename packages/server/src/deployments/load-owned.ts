import { notFound } from '../platform/errors/app-error.js';
import { assertCaller, ownerOf, type Caller, type Services } from '../services.js';
import type { Deployment } from '../domain/deployment.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Another owner's deployment and a deployment that does not exist look the same: NOT_FOUND. A
 * personal caller sees only the user's personal deployments, an organization's only the organization's.
 */
export async function loadOwned(s: Pick<Services, 'deployments'>, caller: Caller, id: string): Promise<Deployment> {
  assertCaller(caller);
  if (!UUID.test(id)) throw notFound();
  const d = await s.deployments.findOwned(id.toLowerCase(), ownerOf(caller));
  if (!d) throw notFound();
  return d;
}
