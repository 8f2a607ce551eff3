// The local payment provider's pages (registered only with PAYMENT_PROVIDER=local): GET shows the
// slot and a Pay button; POST .../complete (what the button does) marks a pending slot paid.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { completeLocalCheckout } from './complete-checkout.js';
import { checkoutPage, checkoutPageHeaders, notFoundPage, paidPage, unpayablePage } from './pages.js';
import type { Deployment } from '../../domain/deployment.js';

async function page(s: Services, d: Deployment, url: string) {
  if (d.paymentStatus === 'paid') return paidPage(d);
  if (d.paymentStatus !== 'pending') return unpayablePage(d);
  const price = (await s.payments.planPrices())[d.apiMode];
  return checkoutPage(d, url, price, d.apiMode === 'byok' ? undefined : s.billing.monthlyCreditsUsd[d.apiMode]);
}

export async function localCheckoutRoutes(app: FastifyInstance, s: Services) {
  // The Pay button posts an HTML form; its fields carry nothing we need.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, _body, done) =>
    done(null, {}),
  );

  app.get<{ Params: { checkoutId: string } }>(
    '/checkout/:checkoutId',
    { schema: { hide: true } },
    async (req, reply) => {
      const d = await s.deployments.findByCheckoutId(req.params.checkoutId);
      checkoutPageHeaders(reply);
      if (!d) return reply.status(404).send(notFoundPage());
      return page(s, d, req.url);
    },
  );

  app.post<{ Params: { checkoutId: string } }>(
    '/checkout/:checkoutId/complete',
    { schema: { hide: true } },
    async (req, reply) => {
      const d = await completeLocalCheckout(s, req.params.checkoutId);
      checkoutPageHeaders(reply);
      if (!d) return reply.status(404).send(notFoundPage());
      const url = req.url.replace(/\/complete(\?.*)?$/, '');
      if (d.paymentStatus !== 'paid') return reply.status(409).send(await page(s, d, url));
      return paidPage(d);
    },
  );
}
