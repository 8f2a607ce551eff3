// GET /metrics: the agent's Prometheus text to the bearer of METRICS_TOKEN (Prometheus scraping a
// pod), or of the host's admin token (the control plane that supervises a local host reads it
// this way, so the metrics token never enters the environment of a process that runs tenants'
// tools). Without METRICS_TOKEN anyone else gets the 404 of an unknown path.
import type { FastifyInstance } from 'fastify';
import { AgentError } from '../errors.js';
import { bearerMatches } from '@berth/contracts/bearer';
import { CONTENT_TYPE, type Family, render } from './exposition.js';

export function metricsRoute(
  app: FastifyInstance,
  o: { metricsToken?: string; adminToken?: string; families(): Family[] },
) {
  const { metricsToken, adminToken } = o;
  if (!metricsToken && !adminToken) return;
  app.get('/metrics', async (req, reply) => {
    const auth = req.headers.authorization;
    // Both checks run, so the time taken does not tell which token was tried.
    const asScraper = metricsToken !== undefined && bearerMatches(auth, metricsToken);
    const asAdmin = adminToken !== undefined && bearerMatches(auth, adminToken);
    if (!asScraper && !asAdmin) {
      if (!metricsToken) throw new AgentError('NOT_FOUND', 'No route GET /metrics.');
      throw new AgentError('UNAUTHORIZED', 'A bearer token (METRICS_TOKEN) is required to read the metrics.');
    }
    return reply.header('content-type', CONTENT_TYPE).header('cache-control', 'no-store').send(render(o.families()));
  });
}
