// Per-person rate limit (RATE_LIMIT_PER_MINUTE): @fastify/rate-limit with a store backed by our
// database, so replicas on one PostgreSQL share each person's count. Keyed by the person (the user
// a key or session belongs to), never by address: many users behind one proxy must not share a
// budget. Never by key either: keys are free, so one person's five keys (personal or for their
// organizations) would have five budgets (issue 28, finding 3).
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import type { RateLimitRepo, WindowCount } from '../store/rate-limits.js';

export const RATE_WINDOW_MS = 60_000;

declare module 'fastify' {
  interface FastifyRequest {
    /** The id of the API key that authenticated the request (set with userId). */
    apiKeyId?: string;
  }
}

/** The library's store interface over the counters table: a place of the count per request (leased in blocks, see the repo). */
function storeOver(repo: RateLimitRepo, now: () => number) {
  return class DatabaseRateLimitStore implements FastifyRateLimitStore {
    incr(
      key: string,
      cb: (err: Error | null, res?: { current: number; ttl: number }) => void,
      windowMs: number,
      max: number,
    ) {
      const t = now();
      const start = Math.floor(t / windowMs) * windowMs;
      const answer = (c: WindowCount) => cb(null, { current: c.count, ttl: Math.max(1, c.windowStart + windowMs - t) });
      const c = repo.take(key, start, max);
      if ('then' in c) c.then(answer, (err: Error) => cb(err));
      else answer(c);
    }

    read(key: string, cb: (err: Error | null, res?: { current: number; ttl: number }) => void, windowMs: number) {
      const t = now();
      const start = Math.floor(t / windowMs) * windowMs;
      repo.read(key, start).then(
        (c) => cb(null, { current: c.count, ttl: c.count ? Math.max(1, c.windowStart + windowMs - t) : 0 }),
        (err: Error) => cb(err),
      );
    }

    child() {
      return this;
    }
  };
}

export async function registerRateLimit(
  app: FastifyInstance,
  opts: { perMinute: number; repo: RateLimitRepo; now: () => number },
) {
  if (opts.perMinute <= 0) return;
  await app.register(rateLimit, {
    max: opts.perMinute,
    timeWindow: RATE_WINDOW_MS,
    // After authentication (an app-wide onRequest hook), so the key is known and a bad key is a
    // 401 that costs nobody's budget.
    hook: 'onRequest',
    enableDraftSpec: true,
    store: storeOver(opts.repo, opts.now),
    // Only API-key and browser-session requests are counted (a session by its user); workers'
    // gateway calls and public pages are not.
    allowList: (req: FastifyRequest) => !req.apiKeyId && !req.sessionId,
    keyGenerator: (req: FastifyRequest) => `user:${req.userId}`,
    errorResponseBuilder: (_req, ctx) => {
      const seconds = String(Math.max(1, Math.ceil(ctx.ttl / 1000)));
      return new AppError(
        'RATE_LIMITED',
        `Rate limit of ${ctx.max} requests per minute per person (all of your API keys and sessions together) reached; retry in ${seconds} s.`,
        { limit: ctx.max, window: 'minute', retryAfterSeconds: Number(seconds) },
        {
          'retry-after': seconds,
          'ratelimit-limit': String(ctx.max),
          'ratelimit-remaining': '0',
          'ratelimit-reset': seconds,
        },
      );
    },
  });
}
