// Stripe behind the payments port. Only this file imports the Stripe SDK.
import Stripe from 'stripe';
import { AppError } from '../errors/app-error.js';
import type { ApiMode } from '../domain/deployment.js';
import type { PaymentsPort } from './port.js';

export interface StripeSettings {
  secretKey: string;
  prices: Partial<Record<ApiMode, string>>;
  apiBase?: string;
  publicBaseUrl: string;
}

export function createStripeClient(secretKey: string, apiBase?: string): Stripe {
  const base = apiBase ? new URL(apiBase) : undefined;
  return new Stripe(secretKey, {
    maxNetworkRetries: 2,
    telemetry: false,
    timeout: 20_000,
    ...(base ? { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol.replace(':', '') as 'http' | 'https' } : {}),
  });
}

export function createStripePayments(settings: StripeSettings, stripe = createStripeClient(settings.secretKey, settings.apiBase)): PaymentsPort {
  return {
    name: 'stripe',
    async createCheckout({ deploymentId, userId, apiMode, idempotencyKey }) {
      const price = settings.prices[apiMode];
      if (!price) {
        throw new AppError('PAYMENT_NOT_CONFIGURED', `Purchases of ${apiMode} slots are not configured on this server (STRIPE_PRICE_${apiMode.toUpperCase()} is unset); ask the operator.`);
      }
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'subscription',
          line_items: [{ price, quantity: 1 }],
          client_reference_id: deploymentId,
          metadata: { deploymentId, userId, apiMode },
          subscription_data: { metadata: { deploymentId, userId, apiMode } },
          success_url: `${settings.publicBaseUrl}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: `${settings.publicBaseUrl}/checkout/cancel?deployment_id=${deploymentId}`,
        },
        { idempotencyKey: idempotencyKey ?? `purchase-${deploymentId}` },
      );
      if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
      return { checkoutUrl: session.url };
    },
    async cancelSubscription(subscriptionId) {
      try {
        await stripe.subscriptions.cancel(subscriptionId);
      } catch (err) {
        // Already gone is what we wanted.
        if ((err as { statusCode?: number }).statusCode === 404) return;
        throw err;
      }
    },
  };
}
