// The built-in payment provider: a checkout page served by the control plane itself, for
// self-hosters who bill elsewhere (or not at all) and for trying Berth out.
import type { PaymentsPort } from './port.js';

export function createLocalPayments(publicBaseUrl: string): PaymentsPort {
  return {
    name: 'local',
    async createCheckout({ checkoutId }) {
      return { checkoutUrl: `${publicBaseUrl}/checkout/${checkoutId}` };
    },
    async cancelSubscription() {
      // Local subscriptions live only in the deployment row, which the caller removes.
    },
    async expireCheckout() {
      // The local checkout page reads the deployment row; once the row is gone the link is a 404.
    },
    surface: { kind: 'local' },
  };
}
