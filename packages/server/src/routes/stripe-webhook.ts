// POST /api/webhooks/stripe: the signature is checked over the raw body, then the event is
// applied once. Unknown event types are acknowledged and ignored.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { WebhookSignatureError } from '../payments/events.js';
import type { Services } from '../services/context.js';
import { applyPaymentEvent } from '../services/apply-payment-event.js';

export async function stripeWebhookRoutes(app: FastifyInstance, s: Services) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post<{ Body: Buffer }>('/api/webhooks/stripe', { schema: { hide: true } }, async (req) => {
    if (s.payments.name !== 'stripe' || !s.payments.parseWebhook) {
      throw new AppError('NOT_FOUND', 'Stripe webhooks are not enabled on this server (PAYMENT_PROVIDER is not stripe).');
    }
    if (!Buffer.isBuffer(req.body)) throw new AppError('INVALID_REQUEST', 'Send the event as application/json.');
    let event;
    try {
      event = await s.payments.parseWebhook(req.body, req.headers['stripe-signature'] as string | undefined);
    } catch (err) {
      if (err instanceof WebhookSignatureError) throw new AppError('INVALID_REQUEST', 'The Stripe-Signature header does not match this payload and STRIPE_WEBHOOK_SECRET.');
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
}
