// One security suite, run against every route: no key, unknown key, revoked key, Bearer where
// only X-API-Key is accepted, another user's deployment, and the API switched off.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './helpers/harness.js';
import { assertError } from './helpers/api.js';
import { ROUTES, startOwnerAndStranger } from './helpers/routes.js';
import { revokeApiKey } from '../src/index.js';

let h: Harness;
let owner: string;
let stranger: string;
let revoked: string;
let id: string;

before(async () => {
  ({ h, owner, stranger, id } = await startOwnerAndStranger());
  revoked = await h.key('revoked@example.com');
  await revokeApiKey(
    { users: h.runtime.services.users, secrets: h.runtime.secrets, now: () => new Date() },
    'revoked@example.com',
    revoked.slice(0, 12),
  );
});
after(async () => h.close());

for (const route of ROUTES) {
  describe(`${route.name} (${route.method})`, () => {
    const call = (headers: Record<string, string>) =>
      h.inject({
        method: route.method,
        url: route.path(id),
        headers,
        ...(route.body ? { payload: route.body as object } : {}),
      });

    test('no key → 401', async () => {
      const res = await call({});
      assertError(res, 401, 'UNAUTHORIZED');
      assert.match(res.json().error.message, /required/i);
    });
    test('unknown key → 401', async () => {
      assertError(await call({ 'x-api-key': 'berth_' + 'x'.repeat(40) }), 401, 'UNAUTHORIZED');
      assertError(await call({ 'x-api-key': 'garbage' }), 401, 'UNAUTHORIZED');
    });
    test('revoked key → 401', async () => {
      const res = await call({ 'x-api-key': revoked });
      assertError(res, 401, 'UNAUTHORIZED');
      assert.match(res.json().error.message, /invalid or revoked/);
    });
    test(route.bearer ? 'Bearer is accepted' : 'Bearer → 401 naming X-API-Key', async () => {
      const res = await call({ authorization: `Bearer ${owner}` });
      if (route.bearer) {
        assert.notEqual(res.statusCode, 401, res.body);
      } else {
        assertError(res, 401, 'UNAUTHORIZED');
        assert.match(res.json().error.message, /X-API-Key/);
      }
    });
    if (route.needsId) {
      test("another user's deployment → 404", async () => {
        const before = await h.snapshot();
        assertError(await call({ 'x-api-key': stranger }), 404, 'NOT_FOUND');
        assert.deepEqual(await h.snapshot(), before);
      });
    }
  });
}

describe('API disabled', () => {
  test('every route, with or without a key, answers 404 API_DISABLED', async () => {
    const off = await startHarness({ ASSISTANTS_API_V1_ENABLED: 'false' });
    try {
      const key = await off.key();
      for (const route of ROUTES) {
        for (const headers of [{}, { 'x-api-key': key }]) {
          const res = await off.inject({
            method: route.method,
            url: route.path('00000000-0000-4000-8000-000000000000'),
            headers,
            ...(route.body ? { payload: route.body as object } : {}),
          });
          assertError(res, 404, 'API_DISABLED');
        }
      }
      assertError(await off.inject({ method: 'GET', url: '/api/v1/assistants/x/y/z' }), 404, 'API_DISABLED');
      assert.equal((await off.runtime.store.db.selectFrom('deployments').selectAll().execute()).length, 0);
    } finally {
      await off.close();
    }
  });
});
