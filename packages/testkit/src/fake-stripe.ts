// A loopback fake of the Stripe API endpoints Berth uses: checkout sessions (with idempotency
// keys), subscriptions (retrieve, cancel). Form-encoded requests, Stripe-shaped JSON and errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { close, createServer, listen, readJson, sendJson } from './http.js';

export interface StripeRequest { method: string; path: string; headers: IncomingMessage['headers']; params: Record<string, string> }

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export class FakeStripe {
  readonly requests: StripeRequest[] = [];
  readonly sessions = new Map<string, any>();
  readonly subscriptions = new Map<string, any>();
  secretKey = 'sk_test_fake_0123456789';
  /** Answer the next N subscription cancellations with a 500. */
  failCancels = 0;
  url = '';
  private readonly idempotent = new Map<string, { params: string; body: any }>();
  private server = createServer((req, res) => void this.handle(req, res).catch(() => res.destroy()));

  async start(): Promise<this> {
    this.url = await listen(this.server);
    return this;
  }

  stop() { return close(this.server); }

  /** What Stripe does when the customer pays: a subscription with the session's metadata. */
  completeSession(sessionId: string, periodEnd = Math.floor(Date.now() / 1000) + 30 * 86400) {
    const session = this.sessions.get(sessionId)!;
    const sub = {
      id: id('sub'), object: 'subscription', status: 'active', metadata: session.subscription_data_metadata,
      cancel_at_period_end: false, canceled_at: null,
      items: { object: 'list', data: [{ id: id('si'), object: 'subscription_item', current_period_start: periodEnd - 30 * 86400, current_period_end: periodEnd }] },
    };
    this.subscriptions.set(sub.id, sub);
    session.status = 'complete';
    session.payment_status = 'paid';
    session.subscription = sub.id;
    return { session, subscription: sub };
  }

  private error(res: ServerResponse, status: number, message: string, type = 'invalid_request_error') {
    return sendJson(res, status, { error: { type, message } });
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const params = await readJson(req);
    const path = req.url!.split('?')[0]!;
    this.requests.push({ method: req.method!, path, headers: req.headers, params });
    if (req.headers.authorization !== `Bearer ${this.secretKey}`) return this.error(res, 401, 'Invalid API Key provided');
    const key = req.headers['idempotency-key'];
    if (req.method === 'POST' && typeof key === 'string') {
      const seen = this.idempotent.get(key);
      const fingerprint = JSON.stringify(params);
      if (seen && seen.params !== fingerprint) return this.error(res, 400, 'Keys for idempotent requests can only be used with the same parameters they were first used with.', 'idempotency_error');
      if (seen) return sendJson(res, 200, seen.body);
    }
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      if (params.mode !== 'subscription') return this.error(res, 400, 'mode must be subscription here');
      if (!params['line_items[0][price]']) return this.error(res, 400, 'Missing required param: line_items[0][price].');
      const sid = id('cs_test');
      const metadata: Record<string, string> = {};
      const subMeta: Record<string, string> = {};
      for (const [k, v] of Object.entries(params)) {
        const a = /^metadata\[(\w+)\]$/.exec(k);
        if (a) metadata[a[1]!] = String(v);
        const b = /^subscription_data\[metadata\]\[(\w+)\]$/.exec(k);
        if (b) subMeta[b[1]!] = String(v);
      }
      const session = {
        id: sid, object: 'checkout.session', mode: 'subscription', status: 'open', payment_status: 'unpaid',
        url: `https://checkout.stripe.test/c/pay/${sid}`, client_reference_id: params.client_reference_id ?? null,
        success_url: params.success_url, cancel_url: params.cancel_url, metadata, subscription: null,
        subscription_data_metadata: subMeta,
      };
      this.sessions.set(sid, session);
      if (typeof key === 'string') this.idempotent.set(key, { params: JSON.stringify(params), body: session });
      return sendJson(res, 200, session);
    }
    if ((m = /^\/v1\/subscriptions\/([\w]+)$/.exec(path))) {
      const sub = this.subscriptions.get(m[1]!);
      if (!sub) return this.error(res, 404, `No such subscription: '${m[1]}'`);
      if (req.method === 'GET') return sendJson(res, 200, sub);
      if (req.method === 'DELETE') {
        if (this.failCancels > 0) { this.failCancels--; return this.error(res, 500, 'An unknown error occurred', 'api_error'); }
        sub.status = 'canceled';
        sub.canceled_at = Math.floor(Date.now() / 1000);
        return sendJson(res, 200, sub);
      }
    }
    return this.error(res, 404, `Unrecognized request URL (${req.method}: ${path}).`);
  }
}
