// The app-wide request hooks' fast paths answer exactly as their slow ones: the onRequest hook
// identifies a cached key without a promise (identifyFromCache), and the absent-body hook runs only
// on the routes Fastify validates a body for, the chat route reading its absent body itself.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { clockAtWindowStart } from './helpers/clock.js';
import { activeDeployment, assertError, purchase } from './helpers/api.js';

let h: Harness;
let key: string;
// The rate limit counts in fixed minutes aligned to the clock: a test whose two requests straddled a
// minute's end saw the count start again (599 !== 598 in CI). The clock starts at a window's start.
before(async () => {
  ({ h, key } = await startHarnessWithKey({}, { now: clockAtWindowStart() }));
});
after(async () => h.close());

const A = '/api/v1/assistants';
const ORG = 'x-berth-organization';
const OTHER_ORG = '00000000-0000-4000-8000-000000000001';

describe('identify from the key cache', () => {
  const list = (k: string, extra: Record<string, string> = {}) =>
    h.inject({ method: 'GET', url: A, headers: { 'x-api-key': k, ...extra } });

  test('a cached key gets the same answers as its first, uncached request', async () => {
    // Key 1's first request is a mismatched organization (the store's path); key 2 is cached first.
    const [k1, k2] = [await h.key(), await h.key()];
    const uncached = await list(k1, { [ORG]: OTHER_ORG });
    assert.equal((await list(k2)).statusCode, 200);
    const cached = await list(k2, { [ORG]: OTHER_ORG });
    assertError(uncached, 400, 'INVALID_REQUEST');
    assertError(cached, 400, 'INVALID_REQUEST');
    assert.equal(cached.json().error.message, uncached.json().error.message);
    // The caller set from the cache is the key's owner: its own list, the limit counted on it.
    const first = await list(k1);
    const second = await list(k1);
    assert.equal(first.statusCode, 200);
    assert.deepEqual(second.json(), first.json());
    assert.equal(Number(second.headers['ratelimit-remaining']), Number(first.headers['ratelimit-remaining']) - 1);
    assert.equal(second.headers['x-request-id'] !== first.headers['x-request-id'], true);
    assert.equal(second.headers['cache-control'], 'no-store');
  });

  test("a cached key sees only its own tenant's deployments", async () => {
    const [k1, k2] = [await h.key(), await h.key()];
    const mine = (await purchase(h, k1)).deploymentId;
    for (let i = 0; i < 2; i++) {
      const ids = (await list(k2)).json().data.map((d: { deploymentId: string }) => d.deploymentId);
      assert.equal(ids.includes(mine), false);
      assertError(
        await h.inject({ method: 'GET', url: `${A}/${mine}`, headers: { 'x-api-key': k2 } }),
        404,
        'NOT_FOUND',
      );
    }
  });

  test('an unknown key is refused on every request (nothing cached for it)', async () => {
    for (let i = 0; i < 2; i++) assertError(await list('berth_unknown0000000000000000'), 401, 'UNAUTHORIZED');
  });
});

describe('an absent body counts as {}', () => {
  test('PATCH: the same 400 as for {}', async () => {
    const { deploymentId } = await purchase(h, key);
    const absent = await h.inject({ method: 'PATCH', url: `${A}/${deploymentId}`, headers: { 'x-api-key': key } });
    const empty = await h.inject({
      method: 'PATCH',
      url: `${A}/${deploymentId}`,
      headers: { 'x-api-key': key },
      payload: {},
    });
    assertError(absent, 400, 'INVALID_REQUEST');
    assertError(empty, 400, 'INVALID_REQUEST');
    assert.equal(absent.json().error.message, empty.json().error.message);
  });

  test('chat: the same 400 as for {} (it names what is missing, not an empty body)', async () => {
    const id = await activeDeployment(h, key);
    const url = `${A}/${id}/chat/completions`;
    const absent = await h.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}` } });
    const empty = await h.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    assertError(absent, 400, 'INVALID_REQUEST');
    assertError(empty, 400, 'INVALID_REQUEST');
    assert.equal(absent.json().error.message, empty.json().error.message);
    assert.doesNotMatch(absent.json().error.message, /empty/);
  });
});

describe('the cookie plugin only where the session cookie is set', () => {
  /** Each route's hooks by "METHOD /last/segment", from Fastify's own listing. */
  function hooksByRoute(): Map<string, string[]> {
    const routes = new Map<string, string[]>();
    let current: string[] | undefined;
    for (const line of h.runtime.app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n')) {
      const route = /(\/\S*) \(([A-Z]+)\)\s*$/.exec(line);
      if (route) routes.set(`${route[2]} ${route[1]}`, (current = []));
      else if (current && line.includes('• (')) current.push(line.slice(line.indexOf('• (') + 2).trim());
    }
    return routes;
  }

  test('the chat route runs no onSend hook; sign-in and sign-out run the cookie writer', () => {
    const routes = hooksByRoute();
    const chat = routes.get('POST /chat/completions');
    assert.ok(chat, 'the chat route is listed');
    assert.deepEqual(
      chat.filter((x) => x.startsWith('(onSend)')),
      [],
    );
    for (const auth of ['POST /api/auth/login', 'POST /api/auth/logout'])
      assert.match(routes.get(auth)?.join(' ') ?? '', /fastifyCookieOnSendHandler/, auth);
    const elsewhere = [...routes].filter(([r, x]) => !r.includes('/api/auth') && x.join(' ').includes('Cookie'));
    assert.deepEqual(elsewhere, [], 'no route outside /api/auth runs the cookie plugin');
  });

  test('a session cookie still signs a request in on a route outside the plugin', async () => {
    const email = `cookie-${Date.now()}@example.com`;
    const signedUp = await h.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email, password: 'correct horse battery' },
      remoteAddress: '10.9.8.7',
    });
    assert.equal(signedUp.statusCode, 201, signedUp.body);
    const cookie = signedUp.cookies.find((c) => c.name === 'berth_session');
    assert.ok(cookie?.value, 'sign-up sets the session cookie');
    const list = await h.inject({ method: 'GET', url: A, headers: { cookie: `berth_session=${cookie.value}` } });
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.headers['set-cookie'], undefined, 'a read sets no cookie');
    const none = await h.inject({ method: 'GET', url: A, headers: { cookie: 'berth_session=nope' } });
    assertError(none, 401, 'UNAUTHORIZED');
  });
});
