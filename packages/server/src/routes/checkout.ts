// The local payment provider's pages: GET shows the slot and a Pay button; POST .../complete
// (what the button does) marks the slot paid and shows a success page.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/context.js';
import { completeLocalCheckout } from '../services/complete-local-checkout.js';
import { canceledPage, checkoutPage, confirmingPage, notFoundPage, paidPage } from './checkout-pages.js';

export function checkoutRoutes(app: FastifyInstance, s: Services) {
  // The Pay button posts an HTML form; its fields carry nothing we need.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, _body, done) => done(null, {}));

  // Where Stripe sends the customer back. The webhook, not this page, marks the slot paid.
  app.get<{ Querystring: { session_id?: string } }>('/checkout/success', { schema: { hide: true } }, async (req, reply) => {
    const d = req.query.session_id ? await s.deployments.findByCheckoutId(req.query.session_id) : undefined;
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    if (!d) return reply.status(404).send(notFoundPage());
    return d.paymentStatus === 'pending' ? confirmingPage(d) : paidPage(d);
  });
  app.get<{ Querystring: { deployment_id?: string } }>('/checkout/cancel', { schema: { hide: true } }, async (_req, reply) => {
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    return canceledPage();
  });

  app.get<{ Params: { checkoutId: string } }>('/checkout/:checkoutId', { schema: { hide: true } }, async (req, reply) => {
    const d = await s.deployments.findByCheckoutId(req.params.checkoutId);
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    if (!d) return reply.status(404).send(notFoundPage());
    return d.paymentStatus === 'pending' ? checkoutPage(d, req.url) : paidPage(d);
  });

  app.post<{ Params: { checkoutId: string } }>('/checkout/:checkoutId/complete', { schema: { hide: true } }, async (req, reply) => {
    const d = await completeLocalCheckout(s, req.params.checkoutId);
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    if (!d) return reply.status(404).send(notFoundPage());
    return paidPage(d);
  });
}
