import { randomToken } from '../../platform/crypto/tokens.js';
import type { Deployment } from '../../domain/deployment.js';
import type { Services } from '../../services.js';
import { saveDeployment } from '../../deployments/index.js';

export const LOCAL_PERIOD_DAYS = 30;

export type CompleteCheckoutDeps = Pick<Services, 'cache' | 'transaction' | 'deployTimeoutMs' | 'deployments' | 'now'>;

/**
 * The local provider's "Pay" button. It moves only `pending` to `paid`: a canceled or past-due
 * slot is never revived from here, and paying twice is harmless (the second time changes nothing).
 */
export async function completeLocalCheckout(
  s: CompleteCheckoutDeps,
  checkoutId: string,
): Promise<Deployment | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const d = await s.deployments.findByCheckoutId(checkoutId);
    if (!d || d.paymentStatus !== 'pending') return d;
    const saved = await saveDeployment(
      s,
      d,
      {
        paymentStatus: 'paid',
        paymentSubscriptionId: `local_sub_${randomToken(24)}`,
        currentPeriodEnd: new Date(s.now().getTime() + LOCAL_PERIOD_DAYS * 86_400_000).toISOString(),
        statusMessage: d.isPrebuy ? 'Paid; ready to activate.' : d.statusMessage,
      },
      { quiet: true },
    );
    if (saved) return saved;
  }
  return s.deployments.findByCheckoutId(checkoutId);
}
