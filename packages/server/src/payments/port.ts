// The payments port. Types only, importing nothing of services.ts or any routes: the Services bag holds
// a PaymentsPort, and payments/routes.ts picks each provider's HTTP surface, so the port
// stays at the bottom of the import graph (.dependency-cruiser.cjs: no cycles, adapters no routes).
import type { ApiMode } from '../domain/deployment.js';
import type { ParsedWebhook } from './events.js';

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

/** Checks a webhook's signature over its raw body and reads the event (throws WebhookSignatureError). */
export type ParseWebhook = (rawBody: Buffer, signatureHeader: string | undefined) => Promise<ParsedWebhook>;

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
  /**
   * Where the owner manages a paid slot's billing (cancel, card, invoices): Stripe's Customer Portal
   * for the subscription's customer, returning to the slot's dashboard page; the local provider's own page.
   */
  billingPortal(req: { subscriptionId: string; deploymentId: string }): Promise<string>;
  /** Makes an unpaid checkout unusable; resolves when it is expired, already completed, or never existed. */
  expireCheckout(checkoutId: string): Promise<void>;
  /**
   * Which HTTP surface the provider needs (payments/routes.ts registers it, alone in its
   * scope, so a provider's pages and webhooks exist only while that provider is configured).
   */
  readonly surface: { kind: 'local' } | { kind: 'stripe'; parseWebhook: ParseWebhook };
}
