// Stripe behind the payments port. Only this file imports the Stripe SDK, and only when
// PAYMENT_PROVIDER=stripe (a dynamic import), so the local provider never loads it.
import type Stripe from 'stripe';
import { AppError } from '../../platform/errors/app-error.js';
import type { ApiMode } from '../../domain/deployment.js';
import type { PaymentsPort, PlanPrice } from '../port.js';
import { WebhookSignatureError, type ParsedWebhook } from '../events.js';

export interface StripeSettings {
  secretKey: string;
  webhookSecret?: string;
  prices: Partial<Record<ApiMode, string>>;
  apiBase?: string;
  publicBaseUrl: string;
}

export async function createStripeClient(secretKey: string, apiBase?: string): Promise<Stripe> {
  const { default: StripeSdk } = await import('stripe');
  const base = apiBase ? new URL(apiBase) : undefined;
  return new StripeSdk(secretKey, {
    maxNetworkRetries: 2,
    telemetry: false,
    timeout: 20_000,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol.replace(':', '') as 'http' | 'https',
        }
      : {}),
  });
}

const id = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : v?.id);
const statusCode = (err: unknown) => (err as { statusCode?: number }).statusCode;

/** The period end moved from the subscription to its items in newer API versions; read either. */
function periodEnd(sub: {
  current_period_end?: number;
  items?: { data?: Array<{ current_period_end?: number }> };
}): number | undefined {
  return sub.current_period_end ?? sub.items?.data?.[0]?.current_period_end;
}

/** How far ahead of this server's clock a webhook's signature may be dated (clock skew). */
export const WEBHOOK_FUTURE_TOLERANCE_S = 300;

/** Money has arrived (or none was due): only then is a completed checkout a paid slot. */
const SETTLED = new Set(['paid', 'no_payment_required']);

export async function createStripePayments(settings: StripeSettings, client?: Stripe): Promise<PaymentsPort> {
  const stripe = client ?? (await createStripeClient(settings.secretKey, settings.apiBase));
  const subscription = (subId: string) =>
    stripe.subscriptions.retrieve(subId) as Promise<Stripe.Subscription & { current_period_end?: number }>;

  async function parseWebhook(rawBody: Buffer, signatureHeader: string | undefined): Promise<ParsedWebhook> {
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(rawBody, signatureHeader ?? '', settings.webhookSecret ?? '');
    } catch (err) {
      throw new WebhookSignatureError((err as Error).message);
    }
    // The SDK refuses a signature older than its tolerance but takes one dated in the future: a
    // signed event held back would be replayable for as long as its date lies ahead (issue 28).
    const signedAt = Number(/(?:^|,)\s*t=(\d+)/.exec(signatureHeader ?? '')?.[1]);
    if (!(signedAt <= Math.floor(Date.now() / 1000) + WEBHOOK_FUTURE_TOLERANCE_S))
      throw new WebhookSignatureError('the signature is dated in the future');
    const ignored = (why = '') => ({ kind: 'ignored' as const, eventId: event.id, type: `${event.type}${why}` });
    const base = { eventId: event.id, createdAt: event.created };
    // A subscription's events name the deployment and user from the metadata checkout gave it.
    const about = (subscriptionId: string, metadata: Record<string, string> | undefined) => ({
      ...base,
      subscriptionId,
      deploymentId: metadata?.deploymentId,
      userId: metadata?.userId,
    });
    const obj = event.data.object as any;
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
      case 'checkout.session.async_payment_failed': {
        const subId = id(obj.subscription);
        if (!subId) return ignored(' without a subscription');
        const meta = {
          ...base,
          subscriptionId: subId,
          deploymentId: obj.client_reference_id ?? obj.metadata?.deploymentId,
          userId: obj.metadata?.userId,
        };
        if (event.type === 'checkout.session.async_payment_failed') return { ...meta, kind: 'checkout_failed' };
        if (!SETTLED.has(obj.payment_status)) return { ...meta, kind: 'checkout_processing' };
        const sub = await subscription(subId);
        return {
          ...meta,
          kind: 'checkout_completed',
          deploymentId: meta.deploymentId ?? sub.metadata?.deploymentId,
          userId: meta.userId ?? sub.metadata?.userId,
          periodEnd: periodEnd(sub),
        };
      }
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const subId = id(obj.subscription) ?? id(obj.parent?.subscription_details?.subscription);
        if (!subId) return ignored(' without a subscription');
        let metadata: Record<string, string> | undefined =
          obj.parent?.subscription_details?.metadata ?? obj.subscription_details?.metadata;
        if (!metadata?.deploymentId) metadata = (await subscription(subId)).metadata;
        const meta = about(subId, metadata);
        if (event.type === 'invoice.payment_failed') return { ...meta, kind: 'payment_failed' };
        const lineEnd = obj.lines?.data?.map((l: any) => l.period?.end).filter(Number.isFinite);
        return { ...meta, kind: 'invoice_paid', periodEnd: lineEnd?.length ? Math.max(...lineEnd) : obj.period_end };
      }
      case 'customer.subscription.updated':
        return {
          ...about(obj.id, obj.metadata),
          kind: 'subscription_updated',
          status: obj.status,
          periodEnd: periodEnd(obj),
          canceledAt: obj.cancel_at_period_end
            ? (obj.canceled_at ?? obj.cancel_at ?? event.created)
            : (obj.canceled_at ?? undefined),
        };
      case 'customer.subscription.deleted':
        return {
          ...about(obj.id, obj.metadata),
          kind: 'subscription_deleted',
          canceledAt: obj.canceled_at ?? obj.ended_at ?? event.created,
        };
      default:
        return ignored();
    }
  }

  // Prices change rarely and are shown on every visit to the plan picker: asked once an hour.
  const priceCache = new Map<string, { at: number; price: PlanPrice | null }>();
  async function priceOf(id: string | undefined): Promise<PlanPrice | null> {
    if (!id) return null;
    const hit = priceCache.get(id);
    if (hit && Date.now() - hit.at < 3600_000) return hit.price;
    let price: PlanPrice | null = null;
    try {
      const p = await stripe.prices.retrieve(id);
      if (typeof p.unit_amount === 'number')
        price = { amount: p.unit_amount / 100, currency: p.currency, interval: p.recurring?.interval ?? null };
    } catch {
      // Unknown price or Stripe unreachable: the picker shows no price rather than failing.
      return null;
    }
    priceCache.set(id, { at: Date.now(), price });
    return price;
  }

  return {
    name: 'stripe',
    async createCheckout({ deploymentId, userId, apiMode }) {
      const price = settings.prices[apiMode];
      if (!price) {
        throw new AppError(
          'PAYMENT_NOT_CONFIGURED',
          `Purchases of ${apiMode} slots are not configured on this server (STRIPE_PRICE_${apiMode.toUpperCase()} is unset); ask the operator.`,
        );
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

    async planPrices() {
      const out = { byok: null, managed: null, unlimited: null } as Record<ApiMode, PlanPrice | null>;
      for (const mode of ['byok', 'managed', 'unlimited'] as const) out[mode] = await priceOf(settings.prices[mode]);
      return out;
    },

    async checkoutUrl(sessionId) {
      try {
        const session = await stripe.checkout.sessions.retrieve(sessionId);
        return session.status === 'open' && session.url ? session.url : undefined;
      } catch (err) {
        if (statusCode(err) === 404) return undefined;
        throw err;
      }
    },

    async cancelSubscription(subscriptionId) {
      try {
        await stripe.subscriptions.cancel(subscriptionId);
      } catch (err) {
        // Stripe answers 404 for a subscription that is already canceled, too: that is what we wanted.
        if (statusCode(err) === 404) return;
        throw err;
      }
    },

    async billingPortal({ subscriptionId, deploymentId }) {
      // The portal belongs to the customer Checkout created for this subscription; what the owner
      // does there (cancel, a new card) comes back as customer.subscription.* webhooks.
      const customer = id((await subscription(subscriptionId)).customer);
      if (!customer) throw new Error(`Stripe subscription ${subscriptionId} has no customer`);
      const session = await stripe.billingPortal.sessions.create({
        customer,
        return_url: `${settings.publicBaseUrl}/deployments/${deploymentId}`,
      });
      return session.url;
    },

    async expireCheckout(sessionId) {
      try {
        await stripe.checkout.sessions.expire(sessionId);
      } catch (err) {
        if (statusCode(err) === 404) return;
        // Only open sessions can be expired. A completed one is the webhook's business (its
        // subscription is canceled there, the slot being gone); an expired one is what we wanted.
        if (statusCode(err) === 400 && (await stripe.checkout.sessions.retrieve(sessionId)).status !== 'open') return;
        throw err;
      }
    },

    surface: { kind: 'stripe', parseWebhook },
  };
}
