// A loopback fake of the Stripe API endpoints Berth uses: checkout sessions (create with
// idempotency keys, retrieve, expire), subscriptions (retrieve, cancel), Customer Portal sessions
// (create), and what a customer does in the portal (cancel now or at the period's end). Form-encoded requests,
// Stripe-shaped JSON and errors, and ids of Stripe's real length and alphabet (a test Checkout
// Session id is cs_test_ + 58 characters: 66 in all).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { close, createServer, listen, readJson, sendJson } from './http.js';

export interface StripeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  params: Record<string, string>;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function base62(n: number): string {
  let out = '';
  for (const b of randomBytes(n * 2)) {
    if (b < 248) out += BASE62[b % 62];
    if (out.length === n) return out;
  }
  return out + base62(n - out.length);
}

/** Ids shaped like Stripe's: cs_test_a1… (66), sub_1… / evt_1… / in_1… (28), cus_… (18), si_… (17). */
export const stripeIds = {
  checkoutSession: () => `cs_test_a1${base62(56)}`,
  subscription: () => `sub_1${base62(23)}`,
  subscriptionItem: () => `si_${base62(14)}`,
  event: () => `evt_1${base62(23)}`,
  invoice: () => `in_1${base62(23)}`,
  customer: () => `cus_${base62(14)}`,
  portalSession: () => `bps_1${base62(23)}`,
  portalConfiguration: () => `bpc_1${base62(23)}`,
};

const unix = () => Math.floor(Date.now() / 1000);

export class FakeStripe {
  readonly requests: StripeRequest[] = [];
  readonly sessions = new Map<string, any>();
  readonly subscriptions = new Map<string, any>();
  /** Customer Portal sessions created, by id. */
  readonly portalSessions = new Map<string, any>();
  private readonly portalConfiguration = stripeIds.portalConfiguration();
  /** Prices by id, as GET /v1/prices/{id} answers them (unit_amount in cents). */
  readonly prices = new Map<string, { unit_amount: number; currency: string; interval: string | null }>();
  secretKey = 'sk_test_fake_0123456789';
  /** Answer the next N subscription cancellations with a 500. */
  failCancels = 0;
  /** Answer the next N checkout session expirations with a 500. */
  failExpires = 0;
  url = '';
  private readonly idempotent = new Map<string, { params: string; body: any }>();
  private server = createServer((req, res) => void this.handle(req, res).catch(() => res.destroy()));

  async start(): Promise<this> {
    this.url = await listen(this.server);
    return this;
  }

  stop() {
    return close(this.server);
  }

  /**
   * What Stripe does when the customer pays: a subscription with the session's metadata. With a
   * delayed method (`delayed: true`, e.g. SEPA debit) the session completes with payment_status
   * "unpaid" and the subscription stays incomplete until `settleDelayedPayment`.
   */
  completeSession(sessionId: string, periodEnd = unix() + 30 * 86400, opts: { delayed?: boolean } = {}) {
    const session = this.sessions.get(sessionId)!;
    const sub = {
      id: stripeIds.subscription(),
      object: 'subscription',
      status: opts.delayed ? 'incomplete' : 'active',
      customer: session.customer,
      metadata: session.subscription_data_metadata,
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      created: unix(),
      livemode: false,
      latest_invoice: stripeIds.invoice(),
      items: {
        object: 'list',
        data: [
          {
            id: stripeIds.subscriptionItem(),
            object: 'subscription_item',
            current_period_start: periodEnd - 30 * 86400,
            current_period_end: periodEnd,
          },
        ],
      },
    };
    this.subscriptions.set(sub.id, sub);
    session.status = 'complete';
    session.payment_status = opts.delayed ? 'unpaid' : 'paid';
    session.subscription = sub.id;
    session.invoice = sub.latest_invoice;
    session.url = null;
    return { session: this.view(session), subscription: sub };
  }

  /** The delayed payment of a completed session arrives (or fails). */
  settleDelayedPayment(sessionId: string, ok: boolean) {
    const session = this.sessions.get(sessionId)!;
    const sub = this.subscriptions.get(session.subscription)!;
    if (ok) {
      session.payment_status = 'paid';
      sub.status = 'active';
    }
    return { session: this.view(session), subscription: sub };
  }

  /**
   * The customer cancels in the Customer Portal: at the period's end (Stripe's default: the
   * subscription stays active with cancel_at_period_end, sent as customer.subscription.updated)
   * or at once (canceled, sent as customer.subscription.deleted). Returns the subscription.
   */
  cancelInPortal(subscriptionId: string, opts: { atPeriodEnd: boolean }) {
    const sub = this.subscriptions.get(subscriptionId)!;
    const now = unix();
    if (opts.atPeriodEnd) {
      sub.cancel_at_period_end = true;
      sub.cancel_at = sub.items.data[0].current_period_end;
      sub.canceled_at = now;
      sub.cancellation_details = { comment: null, feedback: null, reason: 'cancellation_requested' };
    } else {
      sub.status = 'canceled';
      sub.canceled_at = now;
      sub.ended_at = now;
      sub.cancellation_details = { comment: null, feedback: null, reason: 'cancellation_requested' };
    }
    return { ...sub };
  }

  /** An event envelope as Stripe delivers it to a webhook endpoint. */
  event(type: string, object: object, created = unix()) {
    return {
      id: stripeIds.event(),
      object: 'event',
      api_version: '2025-10-29.clover',
      created,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object },
    };
  }

  /** The subscription's invoice for a period, as invoice.paid / invoice.payment_failed carry it. */
  invoice(subscriptionId: string, periodEnd: number) {
    const sub = this.subscriptions.get(subscriptionId)!;
    return {
      id: stripeIds.invoice(),
      object: 'invoice',
      customer: sub.customer,
      status: 'paid',
      billing_reason: 'subscription_cycle',
      amount_paid: 900,
      currency: 'usd',
      period_start: periodEnd - 30 * 86400,
      period_end: periodEnd - 30 * 86400,
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { metadata: sub.metadata, subscription: sub.id },
      },
      lines: {
        object: 'list',
        data: [
          { id: `il_${base62(24)}`, object: 'line_item', period: { start: periodEnd - 30 * 86400, end: periodEnd } },
        ],
      },
    };
  }

  /** The session as the API shows it (without our bookkeeping field). */
  private view(session: any) {
    const { subscription_data_metadata: _hidden, ...rest } = session;
    return rest;
  }

  private error(res: ServerResponse, status: number, message: string, type = 'invalid_request_error', code?: string) {
    return sendJson(res, status, { error: { type, message, ...(code ? { code } : {}) } });
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const params = await readJson(req);
    const path = req.url!.split('?')[0]!;
    this.requests.push({ method: req.method!, path, headers: req.headers, params });
    if (req.headers.authorization !== `Bearer ${this.secretKey}`)
      return this.error(res, 401, 'Invalid API Key provided');
    const key = req.headers['idempotency-key'];
    if (req.method === 'POST' && typeof key === 'string') {
      const seen = this.idempotent.get(key);
      const fingerprint = JSON.stringify(params);
      if (seen && seen.params !== fingerprint)
        return this.error(
          res,
          400,
          'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          'idempotency_error',
        );
      if (seen) return sendJson(res, 200, seen.body);
    }
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      if (params.mode !== 'subscription') return this.error(res, 400, 'mode must be subscription here');
      if (!params['line_items[0][price]']) return this.error(res, 400, 'Missing required param: line_items[0][price].');
      const sid = stripeIds.checkoutSession();
      const metadata: Record<string, string> = {};
      const subMeta: Record<string, string> = {};
      for (const [k, v] of Object.entries(params)) {
        const a = /^metadata\[(\w+)\]$/.exec(k);
        if (a) metadata[a[1]!] = String(v);
        const b = /^subscription_data\[metadata\]\[(\w+)\]$/.exec(k);
        if (b) subMeta[b[1]!] = String(v);
      }
      const session = {
        id: sid,
        object: 'checkout.session',
        mode: 'subscription',
        status: 'open',
        payment_status: 'unpaid',
        livemode: false,
        created: unix(),
        expires_at: unix() + 86400,
        amount_total: 900,
        currency: 'usd',
        customer: stripeIds.customer(),
        invoice: null,
        url: `https://checkout.stripe.com/c/pay/${sid}#${base62(120)}`,
        client_reference_id: params.client_reference_id ?? null,
        success_url: params.success_url,
        cancel_url: params.cancel_url,
        metadata,
        subscription: null,
        subscription_data_metadata: subMeta,
      };
      this.sessions.set(sid, session);
      if (typeof key === 'string')
        this.idempotent.set(key, { params: JSON.stringify(params), body: this.view(session) });
      return sendJson(res, 200, this.view(session));
    }
    if ((m = /^\/v1\/checkout\/sessions\/(\w+)(\/expire)?$/.exec(path))) {
      const session = this.sessions.get(m[1]!);
      if (!session)
        return this.error(res, 404, `No such checkout.session: '${m[1]}'`, 'invalid_request_error', 'resource_missing');
      if (req.method === 'GET' && !m[2]) return sendJson(res, 200, this.view(session));
      if (req.method === 'POST' && m[2]) {
        if (this.failExpires > 0) {
          this.failExpires--;
          return this.error(res, 500, 'An unknown error occurred', 'api_error');
        }
        if (session.status !== 'open')
          return this.error(res, 400, `Only Checkout Sessions with a status in ["open"] can be expired.`);
        session.status = 'expired';
        session.url = null;
        return sendJson(res, 200, this.view(session));
      }
    }
    if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!params.customer) return this.error(res, 400, 'Missing required param: customer.');
      const known = [...this.sessions.values()].some((x) => x.customer === params.customer);
      if (!known)
        return this.error(
          res,
          400,
          `No such customer: '${params.customer}'`,
          'invalid_request_error',
          'resource_missing',
        );
      const id = stripeIds.portalSession();
      const portal = {
        id,
        object: 'billing_portal.session',
        configuration: this.portalConfiguration,
        created: unix(),
        customer: params.customer,
        flow: null,
        livemode: false,
        locale: null,
        on_behalf_of: null,
        return_url: params.return_url ?? null,
        url: `https://billing.stripe.com/p/session/test_${base62(86)}`,
      };
      this.portalSessions.set(id, portal);
      return sendJson(res, 200, portal);
    }
    if (req.method === 'GET' && (m = /^\/v1\/prices\/(\w+)$/.exec(path))) {
      const p = this.prices.get(m[1]!);
      if (!p) return this.error(res, 404, `No such price: '${m[1]}'`, 'invalid_request_error', 'resource_missing');
      return sendJson(res, 200, {
        id: m[1],
        object: 'price',
        active: true,
        currency: p.currency,
        unit_amount: p.unit_amount,
        unit_amount_decimal: String(p.unit_amount),
        type: p.interval ? 'recurring' : 'one_time',
        recurring: p.interval ? { interval: p.interval, interval_count: 1, usage_type: 'licensed' } : null,
        livemode: false,
      });
    }
    if ((m = /^\/v1\/subscriptions\/(\w+)$/.exec(path))) {
      const sub = this.subscriptions.get(m[1]!);
      if (!sub)
        return this.error(res, 404, `No such subscription: '${m[1]}'`, 'invalid_request_error', 'resource_missing');
      if (req.method === 'GET') return sendJson(res, 200, sub);
      if (req.method === 'DELETE') {
        if (this.failCancels > 0) {
          this.failCancels--;
          return this.error(res, 500, 'An unknown error occurred', 'api_error');
        }
        // Stripe treats a canceled subscription as deleted: canceling it again is a 404.
        if (sub.status === 'canceled')
          return this.error(res, 404, `No such subscription: '${m[1]}'`, 'invalid_request_error', 'resource_missing');
        sub.status = 'canceled';
        sub.canceled_at = unix();
        sub.ended_at = sub.canceled_at;
        return sendJson(res, 200, sub);
      }
    }
    return this.error(res, 404, `Unrecognized request URL (${req.method}: ${path}).`);
  }
}
