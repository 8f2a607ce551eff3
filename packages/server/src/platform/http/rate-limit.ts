// Per-person rate limit (RATE_LIMIT_PER_MINUTE) over our database, so replicas on one PostgreSQL
// share each person's count. Keyed by the person (the user a key or session belongs to), never by
// address: many users behind one proxy must not share a budget. Never by key either: keys are free,
// so one person's five keys (personal or for their organizations) would have five budgets (issue 28,
// finding 3).
//
// Our own callback hook, not @fastify/rate-limit's: the count of most requests comes from this
// replica's lease synchronously (RateLimitRepo.take), and the plugin's hook is an async function
// with a chain of awaits, which cost every API request a promise and several microtask turns for a
// number already known (decision 0027, round 9). It answers as the plugin did (draft-spec headers,
// the same 429 envelope and header order): rate-limit.test, rate-limit-paths.test.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError } from '../errors/app-error.js';
import type { RateLimitRepo, WindowCount } from '../store/rate-limits.js';

export const RATE_WINDOW_MS = 60_000;

declare module 'fastify' {
  interface FastifyRequest {
    /** The id of the API key that authenticated the request (set with userId). */
    apiKeyId?: string;
  }
}

type Hook = (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;
const hooksOf = <T>(h: T | T[] | undefined): T[] => (h === undefined ? [] : Array.isArray(h) ? h : [h]);

/** Where a count's headers go: Fastify's reply, or the raw response of the chat path ahead of it. */
type SetHeader = (name: string, value: string) => void;

/**
 * Counts one request of a person: sets the draft-spec headers and answers undefined, or the 429
 * to send (with the same headers on the error). A promise only when the count needs the store.
 */
export type RequestCounter = (userId: string, set: SetHeader) => AppError | undefined | Promise<AppError | undefined>;

export function requestCounter(opts: { max: number; repo: RateLimitRepo; now: () => number }): RequestCounter {
  const { max, repo, now } = opts;
  const limit = String(max);
  return (userId, set) => {
    const t = now();
    const c = repo.take(`user:${userId}`, Math.floor(t / RATE_WINDOW_MS) * RATE_WINDOW_MS, max);
    return 'then' in c ? c.then((c) => answer(c, t, set)) : answer(c, t, set);
  };

  function answer(c: WindowCount, t: number, set: SetHeader): AppError | undefined {
    const seconds = String(Math.ceil(Math.max(1, c.windowStart + RATE_WINDOW_MS - t) / 1000));
    set('ratelimit-limit', limit);
    if (c.count <= max) {
      set('ratelimit-remaining', String(max - c.count));
      set('ratelimit-reset', seconds);
      return undefined;
    }
    set('ratelimit-remaining', '0');
    set('ratelimit-reset', seconds);
    set('retry-after', seconds);
    return new AppError(
      'RATE_LIMITED',
      `Rate limit of ${max} requests per minute per person (all of your API keys and sessions together) reached; retry in ${seconds} s.`,
      { limit: max, window: 'minute', retryAfterSeconds: Number(seconds) },
      { 'retry-after': seconds, 'ratelimit-limit': limit, 'ratelimit-remaining': '0', 'ratelimit-reset': seconds },
    );
  }
}

/** The hook that counts a request of its person and answers 429 past `max` a window. */
export function rateLimitHook(count: RequestCounter): Hook {
  return (req, reply, done) => {
    // Only API-key and browser-session requests are counted (a session by its user); workers'
    // gateway calls and public pages are not.
    if (!req.apiKeyId && !req.sessionId) return done();
    // A throw here reaches the error handler through Fastify's hook runner, as a rejection does.
    const r = count(req.userId, (name, value) => reply.header(name, value));
    if (r instanceof Promise) r.then((err) => done(err), done);
    else done(r);
  };
}

/**
 * Counts every route registered from here on, after the app-wide onRequest hook (authentication),
 * so the person is known and a bad key is a 401 that costs nobody's budget.
 */
export function registerRateLimit(
  app: FastifyInstance,
  opts: { perMinute: number; repo: RateLimitRepo; now: () => number },
): RequestCounter | undefined {
  if (opts.perMinute <= 0) return undefined;
  const count = requestCounter({ max: opts.perMinute, repo: opts.repo, now: opts.now });
  const hook = rateLimitHook(count);
  app.addHook('onRoute', (route) => {
    route.onRequest = [...hooksOf(route.onRequest), hook];
  });
  // The chat route's path ahead of Fastify counts with the same counter (chat-fast-path.ts).
  return count;
}
