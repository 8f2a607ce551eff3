// The Stripe provider's HTTP surface (registered only with PAYMENT_PROVIDER=stripe):
// POST /api/webhooks/stripe checks the signature over the raw body, then applies the event once
// (unknown event types are acknowledged and ignored); GET /checkout/success and /checkout/cancel
// are where Stripe sends the customer back. The webhook, not the return page, marks a slot paid.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../platform/errors/app-error.js';
import { WebhookSignatureError } from '../events.js';
import type { ParseWebhook } from '../port.js';
import type { Services } from '../../services.js';
import { applyPaymentEvent } from '../apply-payment-event.js';
import {
  canceledPage,
  checkoutPageHeaders,
  confirmingPage,
  notFoundPage,
  paidPage,
  unpayablePage,
} from '../local/pages.js';

export type { ParseWebhook };

export async function stripeRoutes(app: FastifyInstance, s: Services, parseWebhook: ParseWebhook) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post<{ Body: Buffer }>('/api/webhooks/stripe', { schema: { hide: true } }, async (req) => {
    if (!Buffer.isBuffer(req.body)) throw new AppError('INVALID_REQUEST', 'Send the event as application/json.');
    let event;
    try {
      event = await parseWebhook(req.body, req.headers['stripe-signature'] as string | undefined);
    } catch (err) {
      if (err instanceof WebhookSignatureError)
        throw new AppError(
          'INVALID_REQUEST',
          'The Stripe-Signature header does not match this payload and STRIPE_WEBHOOK_SECRET.',
        );
      throw err;
    }
    if (event.kind === 'ignored') {
      req.log.info({ eventId: event.eventId, type: event.type }, 'stripe event ignored');
      return { received: true, result: 'ignored' };
    }
    const result = await applyPaymentEvent(s, event);
    req.log.info({ eventId: event.eventId, kind: event.kind, result }, 'stripe event');
    return { received: true, result };
  });

  app.get<{ Querystring: { session_id?: string } }>(
    '/checkout/success',
    { schema: { hide: true } },
    async (req, reply) => {
      const d = req.query.session_id ? await s.deployments.findByCheckoutId(req.query.session_id) : undefined;
      checkoutPageHeaders(reply);
      if (!d) return reply.status(404).send(notFoundPage());
      return d.paymentStatus === 'pending'
        ? confirmingPage(d)
        : d.paymentStatus === 'paid'
          ? paidPage(d)
          : unpayablePage(d);
    },
  );
  app.get<{ Querystring: { deployment_id?: string } }>(
    '/checkout/cancel',
    { schema: { hide: true } },
    async (_req, reply) => {
      checkoutPageHeaders(reply);
      return canceledPage();
    },
  );
}
