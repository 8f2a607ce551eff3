// The configured payment provider's pages and webhooks. The adapters (payments/) say which surface
// they need and never import a route: routes depend on adapters, not the other way round.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import { localCheckoutRoutes } from './local/routes.js';
import { stripeRoutes } from './stripe/routes.js';

export async function paymentRoutes(app: FastifyInstance, s: Services) {
  const surface = s.payments.surface;
  if (surface.kind === 'stripe') return stripeRoutes(app, s, surface.parseWebhook);
  return localCheckoutRoutes(app, s);
}
