import { randomToken } from '../crypto/tokens.js';
import { LOCAL_PERIOD_DAYS } from '../payments/local.js';
import type { Deployment } from '../domain/deployment.js';
import type { Services } from './context.js';

/** The local provider's "Pay" button. Paying twice is harmless: the second time changes nothing. */
export async function completeLocalCheckout(s: Services, checkoutId: string): Promise<Deployment | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const d = await s.deployments.findByCheckoutId(checkoutId);
    if (!d || d.paymentStatus === 'paid') return d;
    const now = s.now();
    const saved = await s.deployments.update(d.id, d.generation, {
      paymentStatus: 'paid',
      paymentSubscriptionId: `local_sub_${randomToken(24)}`,
      currentPeriodEnd: new Date(now.getTime() + LOCAL_PERIOD_DAYS * 86_400_000).toISOString(),
      statusMessage: d.isPrebuy ? 'Paid; ready to activate.' : d.statusMessage,
      updatedAt: now.toISOString(),
    });
    if (saved) {
      s.cache.targets.delete(`${d.userId}:${d.id}`);
      return saved;
    }
  }
  return s.deployments.findByCheckoutId(checkoutId);
}
