import type { FastifyInstance } from 'fastify';
import type { ApiMode } from '../domain/deployment.js';
import type { Services } from '../services/context.js';

export interface PlanPrice {
  /** In the currency's main unit (dollars, euros). */
  amount: number;
  /** ISO 4217, lower case as Stripe writes it. */
  currency: string;
  /** "month", "year", … or null for a one-off price. */
  interval: string | null;
}

export interface CheckoutRequest {
  deploymentId: string;
  userId: string;
  apiMode: ApiMode;
  /** Our own opaque id for the checkout; the local provider puts it in the URL. */
  checkoutId: string;
}

/**
 * Each provider owns its HTTP surface: the app registers `routes` in a scope of its own, so a
 * provider's pages and webhooks exist only while that provider is configured.
 */
export type PaymentRoutes = (app: FastifyInstance, s: Services) => Promise<void>;

export interface PaymentsPort {
  readonly name: string;
  /** Throws AppError PAYMENT_NOT_CONFIGURED when the mode has no product configured. */
  createCheckout(
    req: CheckoutRequest,
  ): Promise<{ checkoutUrl: string /** The provider's own id (a Checkout Session id). */; externalId?: string }>;
  /** What each mode costs, as the buyer will be charged (null: not sold, or not known). */
  planPrices(): Promise<Record<ApiMode, PlanPrice | null>>;
  /** The link that pays an unpaid checkout again, or undefined when it can no longer be paid. */
  checkoutUrl(checkoutId: string): Promise<string | undefined>;
  /** Ends a subscription; resolves when it is gone or never existed. */
  cancelSubscription(subscriptionId: string): Promise<void>;
  /** Makes an unpaid checkout unusable; resolves when it is expired, already completed, or never existed. */
  expireCheckout(checkoutId: string): Promise<void>;
  /** The provider's pages and webhooks. */
  readonly routes: PaymentRoutes;
}
