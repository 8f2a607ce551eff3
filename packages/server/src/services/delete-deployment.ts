import { AppError } from '../errors/app-error.js';
import { DeploymentRepo } from '../store/deployments.js';
import type { Caller, Services } from './context.js';
import { loadOwned } from './load-owned.js';
import { checkTransition } from './check-transition.js';
import { removeWorker } from './remove-worker.js';
import { CHECKOUT_LIFETIME_MS } from './cancel-subscription-job.js';

export async function deleteDeployment(s: Services, caller: Caller, id: string) {
  const d = await loadOwned(s, caller, id);
  checkTransition('delete', d);
  await removeWorker(s, d, { purge: true });
  // Subscription cleanup goes through the outbox: a payment provider that is down must not block
  // the delete, and the cancellation is retried until it lands.
  const deleted = await s.db.transaction().execute(async (trx) => {
    if (!(await new DeploymentRepo(trx).delete(d.id, d.generation))) return false;
    if (d.paymentSubscriptionId) {
      await s.jobs.enqueue({ kind: 'cancel_subscription', deploymentId: d.id, payload: { subscriptionId: d.paymentSubscriptionId } }, trx);
    }
    // An unpaid slot's checkout link must stop taking money once the slot is gone.
    if (d.paymentStatus === 'pending') {
      const expiresBy = new Date(Date.parse(d.createdAt) + CHECKOUT_LIFETIME_MS).toISOString();
      await s.jobs.enqueue({ kind: 'expire_checkout', deploymentId: d.id, payload: { checkoutId: d.checkoutId, expiresBy } }, trx);
    }
    return true;
  });
  if (!deleted) throw new AppError('INVALID_STATE', 'The deployment changed while it was being deleted; retry the delete.');
  s.jobs.onEnqueue?.();
  return { success: true as const };
}
