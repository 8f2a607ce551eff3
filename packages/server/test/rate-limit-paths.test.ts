// The per-person rate limit's hook has two paths: a request whose place of the count comes from
// this replica's lease (RateLimitRepo.take answers with a plain value: no promise, no wait) and one
// that waits for the count's statement (a window's first request, a used-up lease, the limit
// reached). Both answer as @fastify/rate-limit did before the hook replaced it (decision 0027,
// round 9): the draft-spec headers, in the same order, and the same 429 envelope.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { RateLimitRepo, WindowCount } from '../src/platform/store/rate-limits.js';
import { startHarness, type Harness } from './helpers/harness.js';

// Leases of up to LIMIT / 64 = 3 places: the lease and the statement take turns all the way.
const LIMIT = 200;
// 17.3 s into a minute: 42.7 s of the window left, so every answer says 43.
const WINDOW = Math.floor(Date.now() / 60_000) * 60_000;
const NOW = new Date(WINDOW + 17_300);
const LIST = '/api/v1/assistants';

let h: Harness;
let repo: RateLimitRepo;
let take: RateLimitRepo['take'];
/** How take answered each call since the last reset: with a plain value or a promise. */
let paths: Array<'lease' | 'statement'> = [];

before(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: String(LIMIT) }, { now: () => NOW });
  repo = h.runtime.services.limits.rate;
  take = repo.take.bind(repo);
  repo.take = (...args) => {
    const c = take(...args);
    paths.push('then' in c ? 'statement' : 'lease');
    return c;
  };
});
after(async () => h?.close());

/** What a client sees: status, the headers in their order (but the date and request id), the body. */
function seen(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  const { date: _date, 'x-request-id': id, ...headers } = res.headers;
  return { status: res.statusCode, headers: Object.entries(headers), body: res.body.replaceAll(String(id), '<id>') };
}

const list = (key: string) => h.inject({ method: 'GET', url: LIST, headers: { 'x-api-key': key } });

const RATE_HEADERS = (remaining: number) => [
  ['ratelimit-limit', String(LIMIT)],
  ['ratelimit-remaining', String(remaining)],
  ['ratelimit-reset', '43'],
];
// The refusal as @fastify/rate-limit answered it (recorded from the plugin on this clock).
const REFUSAL = {
  status: 429,
  headers: [
    ['x-content-type-options', 'nosniff'],
    ['referrer-policy', 'no-referrer'],
    ['cache-control', 'no-store'],
    ...RATE_HEADERS(0),
    ['retry-after', '43'],
    ['content-type', 'application/json; charset=utf-8'],
    ['content-length', '228'],
    ['connection', 'keep-alive'],
  ],
  body: JSON.stringify({
    error: {
      code: 'RATE_LIMITED',
      message: `Rate limit of ${LIMIT} requests per minute per person (all of your API keys and sessions together) reached; retry in 43 s.`,
      details: { limit: LIMIT, window: 'minute', retryAfterSeconds: 43 },
    },
  }),
};

// A path that never answers would hang the request: with a timeout it is a failure instead.
test('a whole window counts down by one a request whichever path answers it, then refuses alike', {
  timeout: 60_000,
}, async () => {
  const key = await h.key();
  paths = [];
  const answers = [];
  for (let i = 0; i < LIMIT + 3; i++) answers.push(seen(await list(key)));
  // Both paths answered a good share of the window's requests.
  const leased = paths.slice(0, LIMIT).filter((p) => p === 'lease').length;
  assert.ok(leased > LIMIT / 4 && leased < (LIMIT * 3) / 4, `${leased} of ${LIMIT} from the lease`);
  // The same answer but for the remaining count, which goes down by one a request.
  const but = (a: ReturnType<typeof seen>) => ({
    ...a,
    headers: a.headers.map(([k, v]) => [k, k === 'ratelimit-remaining' ? '·' : v]),
  });
  for (const [i, a] of answers.slice(0, LIMIT).entries()) {
    assert.equal(a.status, 200, `request ${i} (${paths[i]}): ${a.body}`);
    assert.deepEqual(a.headers.slice(3, 6), RATE_HEADERS(LIMIT - i - 1), `request ${i} (${paths[i]})`);
    assert.deepEqual(but(a), but(answers[0]!), `request ${i} (${paths[i]})`);
  }
  for (const a of answers.slice(LIMIT)) assert.deepEqual(a, REFUSAL);
});

test('given the same count, a lease and a statement answer the same, refusal and store failure included', async () => {
  const key = await h.key();
  const at = (count: number): WindowCount => ({ count, windowStart: WINDOW });
  const both = async (make: () => WindowCount) => {
    const out = [];
    for (const path of ['lease', 'statement'] as const) {
      repo.take = () => (path === 'lease' ? make() : Promise.resolve().then(make));
      out.push(seen(await list(key)));
    }
    return out;
  };
  try {
    for (const count of [1, LIMIT - 1, LIMIT, LIMIT + 1, LIMIT * 3]) {
      const [lease, statement] = await both(() => at(count));
      assert.deepEqual(lease, statement, `count ${count}`);
      if (count > LIMIT) assert.deepEqual(lease, REFUSAL);
      else assert.deepEqual(lease!.headers.slice(3, 6), RATE_HEADERS(LIMIT - count));
    }
    const [thrown, rejected] = await both(() => {
      throw new Error('the counters table is gone');
    });
    assert.deepEqual(thrown, rejected);
    assert.equal(thrown!.status, 500);
    assert.equal(JSON.parse(thrown!.body).error.code, 'INTERNAL_ERROR');
  } finally {
    repo.take = (...args) => take(...args);
  }
});

test('public routes and refused keys are not counted and carry no rate-limit headers', async () => {
  paths = [];
  const health = await h.inject({ method: 'GET', url: '/healthz' });
  const refused = await list(`berth_${'x'.repeat(40)}`);
  assert.equal(health.statusCode, 200);
  assert.equal(refused.statusCode, 401);
  for (const res of [health, refused]) assert.equal(res.headers['ratelimit-limit'], undefined);
  assert.deepEqual(paths, []);
});
