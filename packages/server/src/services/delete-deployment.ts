import { AppError } from '../errors/app-error.js';
import type { Caller, Services } from './context.js';
import { loadOwned } from './load-owned.js';
import { checkTransition } from './check-transition.js';
import { removeWorker } from './remove-worker.js';

export async function deleteDeployment(s: Services, caller: Caller, id: string) {
  const d = await loadOwned(s, caller, id);
  checkTransition('delete', d);
  await removeWorker(s, d);
  if (d.paymentSubscriptionId) {
    try {
      await s.payments.cancelSubscription(d.paymentSubscriptionId);
    } catch (err) {
      // Cleanup is attempted, not required: the user asked for the deployment to go.
      s.log.error({ deploymentId: d.id, err: (err as Error).message }, 'subscription cancellation failed');
    }
  }
  if (!(await s.deployments.delete(d.id, d.generation))) {
    throw new AppError('INVALID_STATE', 'The deployment changed while it was being deleted; retry the delete.');
  }
  return { success: true as const };
}
