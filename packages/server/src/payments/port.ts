import type { ApiMode } from '../domain/deployment.js';
import type { ParsedWebhook } from './events.js';

export interface CheckoutRequest {
  deploymentId: string;
  userId: string;
  apiMode: ApiMode;
  /** Our own opaque id for the checkout; the local provider puts it in the URL. */
  checkoutId: string;
}

export interface PaymentsPort {
  readonly name: string;
  /** Throws AppError PAYMENT_NOT_CONFIGURED when the mode has no product configured. */
  createCheckout(req: CheckoutRequest): Promise<{ checkoutUrl: string; /** The provider's own id (a Checkout Session id). */ externalId?: string }>;
  /** Ends a subscription; resolves when it is gone or never existed. */
  cancelSubscription(subscriptionId: string): Promise<void>;
  /** Verifies and reads a webhook delivery; throws WebhookSignatureError. Absent: no webhooks. */
  parseWebhook?(rawBody: Buffer, signatureHeader: string | undefined): Promise<ParsedWebhook>;
}
