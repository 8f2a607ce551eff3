// The built-in payment provider: a checkout page served by the control plane itself, for
// self-hosters who bill elsewhere (or not at all) and for trying Berth out.
import type { ApiMode } from '../../domain/deployment.js';
import type { PaymentsPort, PlanPrice } from '../port.js';

export function createLocalPayments(
  publicBaseUrl: string,
  pricesUsd: Partial<Record<ApiMode, number | undefined>> = {},
): PaymentsPort {
  const price = (amount: number | undefined): PlanPrice | null =>
    amount === undefined ? null : { amount, currency: 'usd', interval: 'month' };
  return {
    name: 'local',
    async planPrices() {
      return { byok: price(pricesUsd.byok), managed: price(pricesUsd.managed), unlimited: price(pricesUsd.unlimited) };
    },
    async createCheckout({ checkoutId }) {
      return { checkoutUrl: `${publicBaseUrl}/checkout/${checkoutId}` };
    },
    async checkoutUrl(checkoutId) {
      return `${publicBaseUrl}/checkout/${checkoutId}`;
    },
    async cancelSubscription() {
      // Local subscriptions live only in the deployment row, which the caller removes.
    },
    async billingPortal({ deploymentId }) {
      // The dashboard's billing page of the slot: the same actions as Stripe's portal, on this server.
      return `${publicBaseUrl}/deployments/${deploymentId}/billing`;
    },
    async expireCheckout() {
      // The local checkout page reads the deployment row; once the row is gone the link is a 404.
    },
    surface: { kind: 'local' },
  };
}
