// Payment events as the services understand them, whatever provider sent them.
export type PaymentEvent = {
  eventId: string;
  createdAt: number;
  subscriptionId: string;
  deploymentId: string | undefined;
  /** The buyer, from the provider object's metadata: tells our own orphaned subscriptions from strangers'. */
  userId: string | undefined;
} & (
  | { kind: 'checkout_completed'; periodEnd: number | undefined }
  /** The checkout finished with a delayed payment method whose money has not arrived yet. */
  | { kind: 'checkout_processing' }
  /** The delayed payment of a checkout failed: the slot stays unpaid. */
  | { kind: 'checkout_failed' }
  | { kind: 'invoice_paid'; periodEnd: number | undefined }
  | { kind: 'payment_failed' }
  | { kind: 'subscription_updated'; status: string; periodEnd: number | undefined; canceledAt: number | undefined }
  | { kind: 'subscription_deleted'; canceledAt: number | undefined }
);

export type ParsedWebhook = PaymentEvent | { kind: 'ignored'; eventId: string; type: string };

export class WebhookSignatureError extends Error {}
