// A worker that is gone (vanished, or refused to start again at once) is not final: the state
// machine moves the deployment back to deploying with a new generation and a deploy job, which
// retries until the deploy deadline. Guarded by the generation read: a user's stop or redeploy
// meanwhile wins.
import type { Deployment } from '../domain/deployment.js';
import { decideEvent } from '../domain/lifecycle.js';
import { applyChange } from '../deployments/index.js';
import type { Services } from '../services.js';

export type RestartDeps = Pick<Services, 'transaction' | 'cache' | 'deployTimeoutMs' | 'now'>;

export async function restartVanished(s: RestartDeps, d: Deployment, reason: string): Promise<boolean> {
  const decision = decideEvent({ kind: 'worker_vanished', recoverable: true, reason }, d);
  return Boolean(decision.ok && decision.change && (await applyChange(s, d, decision.change, {}, { deploy: true })));
}
