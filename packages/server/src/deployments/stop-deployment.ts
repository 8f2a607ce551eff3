import { AppError } from '../platform/errors/app-error.js';
import { decideOperation } from '../domain/lifecycle.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from './load-owned.js';
import { lifecycleStateOf } from './check-transition.js';
import { removeWorker } from '../workers/index.js';
import { applyChange } from './apply-change.js';

/**
 * Every lost save means another writer won, and writers are finite (each user operation writes
 * once, jobs only follow a generation), so the loop settles; the budget only guards a bug.
 * A short random pause spreads stops that lost together so they do not collide again.
 */
const BUDGET_MS = 30_000;
const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));

export type StopDeps = Pick<
  Services,
  'transaction' | 'leases' | 'cache' | 'deployTimeoutMs' | 'deployments' | 'log' | 'now' | 'workers'
>;

/**
 * Stop is idempotent and never a 409: when a deploy job or payment event changes the deployment
 * meanwhile, read it again and stop that. The generation bump makes a deploy in flight a no-op, and
 * the worker is deleted again after the save in case a createWorker in flight finished in between.
 */
export async function stopDeployment(s: StopDeps, caller: Caller, id: string) {
  const deadline = Date.now() + BUDGET_MS;
  for (let attempt = 1; ; attempt++) {
    const d = await loadOwned(s, caller, id);
    const decision = decideOperation('stop', lifecycleStateOf(d));
    if (!decision.ok || !decision.change) throw new AppError('INTERNAL_ERROR', 'stop was refused by the state machine');
    const removal = await removeWorker(s, d);
    const saved = await applyChange(s, d, decision.change).finally(removal.end);
    if (saved) {
      await s.workers
        .deleteWorker(d.workerName)
        .catch((err) =>
          s.log.warn(
            { deploymentId: d.id, err: (err as Error).message },
            'second worker deletion after stop failed; the reconciler retries',
          ),
        );
      return saved;
    }
    if (Date.now() > deadline)
      throw new AppError('INTERNAL_ERROR', 'The deployment kept changing while it was being stopped; retry the stop.');
    await pause(attempt);
  }
}
