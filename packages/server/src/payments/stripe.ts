// Stripe behind the payments port. Only this file imports the Stripe SDK.
import Stripe from 'stripe';
import { AppError } from '../errors/app-error.js';
import type { ApiMode } from '../domain/deployment.js';
import type { PaymentsPort } from './port.js';
import { WebhookSignatureError, type ParsedWebhook } from './events.js';

export interface StripeSettings {
  secretKey: string;
  webhookSecret?: string;
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

const id = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : v?.id);

/** The period end moved from the subscription to its items in newer API versions; read either. */
function periodEnd(sub: { current_period_end?: number; items?: { data?: Array<{ current_period_end?: number }> } }): number | undefined {
  return sub.current_period_end ?? sub.items?.data?.[0]?.current_period_end;
}

export function createStripePayments(settings: StripeSettings, stripe = createStripeClient(settings.secretKey, settings.apiBase)): PaymentsPort {
  const subscription = (subId: string) => stripe.subscriptions.retrieve(subId) as Promise<Stripe.Subscription & { current_period_end?: number }>;
  return {
    name: 'stripe',
    async createCheckout({ deploymentId, userId, apiMode }) {
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
        { idempotencyKey: `purchase-${deploymentId}` },
      );
      if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
      return { checkoutUrl: session.url, externalId: session.id };
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

    async parseWebhook(rawBody, signatureHeader): Promise<ParsedWebhook> {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signatureHeader ?? '', settings.webhookSecret ?? '');
      } catch (err) {
        throw new WebhookSignatureError((err as Error).message);
      }
      const base = { eventId: event.id, createdAt: event.created };
      const obj = event.data.object as any;
      switch (event.type) {
        case 'checkout.session.completed': {
          const subId = id(obj.subscription);
          if (!subId) return { kind: 'ignored', eventId: event.id, type: `${event.type} without a subscription` };
          const sub = await subscription(subId);
          return { ...base, kind: 'checkout_completed', subscriptionId: subId, deploymentId: obj.client_reference_id ?? sub.metadata?.deploymentId, periodEnd: periodEnd(sub) };
        }
        case 'invoice.paid':
        case 'invoice.payment_failed': {
          const subId = id(obj.subscription) ?? id(obj.parent?.subscription_details?.subscription);
          if (!subId) return { kind: 'ignored', eventId: event.id, type: `${event.type} without a subscription` };
          let deploymentId: string | undefined = obj.parent?.subscription_details?.metadata?.deploymentId ?? obj.subscription_details?.metadata?.deploymentId;
          if (!deploymentId) deploymentId = (await subscription(subId)).metadata?.deploymentId;
          if (event.type === 'invoice.payment_failed') return { ...base, kind: 'payment_failed', subscriptionId: subId, deploymentId };
          const lineEnd = obj.lines?.data?.map((l: any) => l.period?.end).filter(Number.isFinite);
          return { ...base, kind: 'invoice_paid', subscriptionId: subId, deploymentId, periodEnd: lineEnd?.length ? Math.max(...lineEnd) : obj.period_end };
        }
        case 'customer.subscription.updated':
          return {
            ...base, kind: 'subscription_updated', subscriptionId: obj.id, deploymentId: obj.metadata?.deploymentId, status: obj.status,
            periodEnd: periodEnd(obj), canceledAt: obj.cancel_at_period_end ? (obj.canceled_at ?? obj.cancel_at ?? event.created) : obj.canceled_at ?? undefined,
          };
        case 'customer.subscription.deleted':
          return { ...base, kind: 'subscription_deleted', subscriptionId: obj.id, deploymentId: obj.metadata?.deploymentId, canceledAt: obj.canceled_at ?? obj.ended_at ?? event.created };
        default:
          return { kind: 'ignored', eventId: event.id, type: event.type };
      }
    },
  };
}
