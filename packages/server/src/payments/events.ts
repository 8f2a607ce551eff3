// Payment events as the services understand them, whatever provider sent them.
export type PaymentEvent = { eventId: string; createdAt: number; subscriptionId: string; deploymentId: string | undefined } & (
  | { kind: 'checkout_completed'; periodEnd: number | undefined }
  | { kind: 'invoice_paid'; periodEnd: number | undefined }
  | { kind: 'payment_failed' }
  | { kind: 'subscription_updated'; status: string; periodEnd: number | undefined; canceledAt: number | undefined }
  | { kind: 'subscription_deleted'; canceledAt: number | undefined }
);

export type ParsedWebhook = PaymentEvent | { kind: 'ignored'; eventId: string; type: string };

export class WebhookSignatureError extends Error {}
