// The same security suite over a real socket, with request targets that routers decode but a
// prefix check on the raw URL does not see: percent-encoded path characters and the absolute form
// (`GET http://host/api/v1/assistants HTTP/1.1`). Each must be refused as the plain form is.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { harnessFor, type Harness } from './helpers/harness.js';
import { ACCOUNT_ROUTES, ROUTES, startOwnerAndStranger } from './helpers/routes.js';
import {
  createKey as createKeyOver,
  createOrganization as createOrgOver,
  signIn,
  signUp,
  type Browser,
} from './helpers/accounts.js';
import { disguises, rawRequest } from './helpers/raw-http.js';
import { listDeployments } from '../src/deployments/list-deployments.js';
import { purchaseIdempotently } from '../src/deployments/purchase-idempotently.js';
import { loadOwned } from '../src/deployments/load-owned.js';
import { resolveChatTarget } from '../src/chat/resolve-chat-target.js';
import type { Caller } from '../src/services.js';
import { buildApp } from '../src/app.js';
import { createLogger } from '../src/index.js';
import { createKey, listKeys } from '../src/accounts/api-keys.js';
import { createOrganization, listOrganizations } from '../src/accounts/organizations.js';

let h: Harness;
let port: number;
let stranger: string;
let id: string;

before(async () => {
  ({ h, stranger, id } = await startOwnerAndStranger());
  const address = await h.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
});
after(async () => h.close());

/** `target` without credentials is refused (401, or 404 for a form no route matches) and changes nothing. */
async function assertRefusedUnchanged(method: string, target: string, body: unknown) {
  const before = await h.snapshot();
  const res = await rawRequest(port, method, target, {}, body);
  assert.ok(res.status === 401 || res.status === 404, `${target} answered ${res.status} ${JSON.stringify(res.body)}`);
  assert.ok(['UNAUTHORIZED', 'NOT_FOUND'].includes(res.body?.error?.code), JSON.stringify(res.body));
  assert.deepEqual(await h.snapshot(), before);
}

for (const route of ROUTES) {
  describe(`${route.name} (${route.method}) under disguised URLs`, () => {
    test("the plain form with a valid key passes auth (control; another user's key, so nothing changes)", async () => {
      const res = await rawRequest(port, route.method, route.path(id), { 'x-api-key': stranger }, route.body);
      assert.notEqual(res.status, 401, JSON.stringify(res.body));
    });
    for (const [how, target] of disguises(route.path(id))) {
      test(`${how}, no key → 401 and nothing changes`, async () => {
        await h.runtime.idle();
        await assertRefusedUnchanged(route.method, target, route.body);
      });
    }
  });
}

// The account routes: the organization, key and member named are the owner's, asked by a stranger.
describe('account routes under disguised URLs', () => {
  let ownerB: Browser;
  let ids: { org: string; key: string; user: string };
  before(async () => {
    ownerB = await signUp(h, 'account-owner@example.com');
    await signUp(h, 'account-stranger@example.com');
    ids = {
      org: await createOrgOver(h, ownerB, 'Owned'),
      key: (await createKeyOver(h, ownerB, 'owned')).id,
      user: ownerB.userId,
    };
  });
  for (const route of ACCOUNT_ROUTES) {
    describe(`${route.name} (${route.method})`, () => {
      test("the plain form with a stranger's credentials passes auth (control)", async () => {
        let headers: Record<string, string> = { 'x-api-key': stranger };
        if (route.session) {
          // A fresh session each time: signing out must not spoil the next route's control.
          const signedIn = await signIn(h, 'account-stranger@example.com');
          const cookie = signedIn.cookies.find((c) => c.name === 'berth_session')!.value;
          headers = { cookie: `berth_session=${cookie}`, 'x-berth-csrf': signedIn.json().data.csrfToken };
        }
        // A client that waits for the answer (rawRequest half-closes, which may cut a slow one off).
        const res = await fetch(`http://127.0.0.1:${port}${route.path(ids)}`, {
          method: route.method,
          headers: { ...headers, ...(route.body ? { 'content-type': 'application/json' } : {}) },
          body: route.body ? JSON.stringify(route.body) : undefined,
        });
        const text = await res.text();
        assert.ok(res.status >= 200 && res.status !== 401, `${res.status} ${text}`);
      });
      // The names are known now, the owner's ids only once `before` ran.
      const placeholder = '00000000-0000-4000-8000-000000000000';
      disguises(route.path({ org: placeholder, key: placeholder, user: placeholder })).forEach(([how], i) => {
        test(`${how}, no credentials → 401 and nothing changes`, async () => {
          await assertRefusedUnchanged(route.method, disguises(route.path(ids))[i]![1], route.body);
        });
      });
    });
  }
});

describe('API disabled, disguised URLs', () => {
  test('every route and every disguise answers 404 API_DISABLED, with or without a key', async (t) => {
    const off = await harnessFor(t, { ASSISTANTS_API_V1_ENABLED: 'false' });
    const key = await off.key();
    const offPort = Number(new URL(await off.runtime.app.listen({ port: 0, host: '127.0.0.1' })).port);
    for (const route of ROUTES) {
      for (const [how, target] of disguises(route.path('00000000-0000-4000-8000-000000000000'))) {
        for (const headers of [{}, { 'x-api-key': key }] as Array<Record<string, string>>) {
          const res = await rawRequest(offPort, route.method, target, headers, route.body);
          assert.equal(res.status, 404, `${route.name} ${how}: ${res.status} ${JSON.stringify(res.body)}`);
          assert.equal(res.body?.error?.code, 'API_DISABLED', `${route.name} ${how}: ${JSON.stringify(res.body)}`);
        }
      }
    }
    assert.equal((await off.runtime.store.db.selectFrom('deployments').selectAll().execute()).length, 0);
    // The kill switch is the assistants API's: accounts stay reachable.
    const b = await signUp(off, 'still-here@example.com');
    const keys = await off.inject({ method: 'GET', url: '/api/keys', headers: b.headers() });
    assert.equal(keys.statusCode, 200, keys.body);
  });
});

describe('every API and account route declares its auth mode', () => {
  test('registering one without is refused when the app is built', async () => {
    const app = await buildApp({
      services: h.runtime.services,
      logger: createLogger('silent'),
      apiEnabled: true,
      publicBaseUrl: 'http://berth.test',
    });
    try {
      for (const url of [
        '/api/v1/assistants/extra',
        '/api/keys/extra',
        '/api/organizations/x/extra',
        '/api/auth/extra',
      ])
        assert.throws(() => app.get(url, async () => ({})), /declares no auth mode/, url);
      app.get('/api/auth/declared', { config: { auth: 'public' } }, async () => ({}));
    } finally {
      await app.close();
    }
  });
});

describe('verbs refuse a missing caller (defence in depth)', () => {
  test('list, purchase, get and chat-target resolution throw UNAUTHORIZED without a user', async () => {
    const before = await h.snapshot();
    const s = h.runtime.services;
    // No user at all, and a user whose organization scope was never decided (a route that lost
    // half of the caller must not fall back to anyone's deployments).
    for (const nobody of [{}, { userId: 'x', keyId: null }] as Caller[]) {
      for (const call of [
        () => listDeployments(s, nobody),
        () => purchaseIdempotently(s, nobody, { apiMode: 'byok' }, undefined),
        () => loadOwned(s, nobody, id),
        () => resolveChatTarget(s, nobody, id),
        () => listKeys(s, nobody),
        () => createKey(s, nobody, { name: 'k' }),
        () => listOrganizations(s, nobody),
        () => createOrganization(s, nobody, { name: 'o' }),
      ]) {
        await assert.rejects(
          async () => call(),
          (err: { code?: string }) => err.code === 'UNAUTHORIZED',
        );
      }
    }
    assert.deepEqual(await h.snapshot(), before);
  });
});
