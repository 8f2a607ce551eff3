// GET /metrics for Prometheus (only when METRICS_TOKEN is set) and the hook that counts every
// answered request by its route pattern. Without a token nothing here is registered: no hook runs
// and /metrics is a 404 like any unknown path.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerMatches } from '@berth/contracts/bearer';
import { AppError } from '../platform/errors/app-error.js';
import type { ChatProxy } from '../chat/index.js';
import type { Metrics } from './metrics.js';

const routeOf = (req: FastifyRequest) => req.routeOptions.url ?? 'unmatched';

/** The counting hook: registered before any route, so it covers all of them. */
export function countRequests(app: FastifyInstance, metrics: Metrics, proxy: ChatProxy) {
  // A callback hook: nothing to wait for on every request. Fastify runs it when the raw response
  // finishes, so hijacked answers (streamed chats, the gateway's relay) are counted too.
  app.addHook('onResponse', (req, reply, done) => {
    metrics.observeRequest(routeOf(req), req.method, reply.raw.statusCode, reply.elapsedTime / 1000);
    done();
  });
  proxy.observer = { firstByte: (s) => metrics.observeFirstByte(s) };
}

export function metricsRoute(app: FastifyInstance, metrics: Metrics, token: string) {
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (!bearerMatches(req.headers.authorization, token))
      throw new AppError('UNAUTHORIZED', 'A bearer token (METRICS_TOKEN) is required to read the metrics.');
    const text = await metrics.text();
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
  });
}
