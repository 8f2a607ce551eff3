import { AppError } from '../platform/errors/app-error.js';
import { decideOperation } from '../domain/lifecycle.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from './load-owned.js';
import { lifecycleStateOf } from './check-transition.js';
import { removeWorker } from '../workers/index.js';
import { CHECKOUT_LIFETIME_MS } from '../payments/index.js';

const ATTEMPTS = 5;

export type DeleteDeps = Pick<Services, 'cache' | 'transaction' | 'deployments' | 'leases' | 'log' | 'now' | 'workers'>;

/** Idempotent and never a 409: a deployment that changed meanwhile is read again and deleted. */
export async function deleteDeployment(s: DeleteDeps, caller: Caller, id: string) {
  for (let attempt = 1; ; attempt++) {
    const d = await loadOwned(s, caller, id);
    const decision = decideOperation('delete', lifecycleStateOf(d));
    if (!decision.ok) throw new AppError('INTERNAL_ERROR', 'delete was refused by the state machine');
    const removal = await removeWorker(s, d, { purge: true });
    // Subscription cleanup goes through the outbox: a payment provider that is down must not block
    // the delete, and the cancellation is retried until it lands.
    const deleted = await s
      .transaction(async (r) => {
        if (!(await r.deployments.delete(d.id, d.generation))) return false;
        // Soft delete: the tombstone lets late payment events find the slot until it is purged.
        await r.tombstones.bury(d, s.now().toISOString());
        await r.settings.deleteAll(d.id);
        await r.mcpServers.deleteAll(d.id);
        await r.channels.deleteAll(d.id);
        if (d.paymentSubscriptionId) {
          await r.jobs.enqueue({
            kind: 'cancel_subscription',
            deploymentId: d.id,
            payload: { subscriptionId: d.paymentSubscriptionId },
          });
        }
        // An unpaid slot's checkout link must stop taking money once the slot is gone.
        if (d.paymentStatus === 'pending') {
          const expiresBy = new Date(Date.parse(d.createdAt) + CHECKOUT_LIFETIME_MS).toISOString();
          await r.jobs.enqueue({
            kind: 'expire_checkout',
            deploymentId: d.id,
            payload: { checkoutId: d.checkoutId, expiresBy },
          });
        }
        return true;
      })
      .finally(removal.end);
    if (deleted) {
      // A createWorker in flight may have finished after the first deletion; the record is gone now,
      // so no deploy job will start it again.
      await s.workers
        .deleteWorker(d.workerName, { purge: true })
        .catch((err) =>
          s.log.warn({ deploymentId: d.id, err: (err as Error).message }, 'second worker deletion after delete failed'),
        );
      return { success: true as const };
    }
    if (attempt >= ATTEMPTS)
      throw new AppError(
        'INTERNAL_ERROR',
        'The deployment kept changing while it was being deleted; retry the delete.',
      );
  }
}
