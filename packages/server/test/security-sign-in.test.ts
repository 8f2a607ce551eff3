// Issue 28, findings 1, 2, 7, 12 and the headers of every answer: sign-in limits that hold behind a
// proxy without becoming one global lock-out, closed sign-up that only the operator opens, and
// answers no cache or browser mishandles. Runs on SQLite and, with with-postgres.sh, on PostgreSQL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { startHarness, type Harness } from './helpers/harness.js';
import { clockAtWindowStart } from './helpers/clock.js';
import { assertError } from './helpers/api.js';
import { createKey, createOrganization, PASSWORD, signIn, signUp, withApiKey } from './helpers/accounts.js';
import { LOGIN_PER_ADDRESS, LOGIN_PER_EMAIL_AND_ADDRESS } from '../src/accounts/login-limit.js';
import { loadConfig } from '../src/index.js';

let h: Harness;
before(async () => {
  h = await startHarness({}, { now: clockAtWindowStart() });
});
after(async () => h?.close());

describe('finding 7: wrong guesses from strangers do not lock the owner out', () => {
  test(`${LOGIN_PER_EMAIL_AND_ADDRESS} wrong guesses from each of 10 addresses: the owner still signs in and changes the password`, async () => {
    const owner = await signUp(h, 'target@example.com');
    for (let a = 1; a <= 10; a++) {
      for (let i = 0; i < LOGIN_PER_EMAIL_AND_ADDRESS; i++) {
        const res = await signIn(h, 'target@example.com', 'not the password', `198.18.7.${a}`);
        assertError(res, 401, 'UNAUTHORIZED');
      }
      // Each stranger has spent their own budget, and only theirs.
      assertError(await signIn(h, 'target@example.com', PASSWORD, `198.18.7.${a}`), 429, 'RATE_LIMITED');
    }
    const res = await signIn(h, 'target@example.com', PASSWORD, '203.0.113.50');
    assert.equal(res.statusCode, 200, res.body);
    const change = await h.inject({
      method: 'POST',
      url: '/api/auth/password',
      headers: owner.headers({ write: true }),
      payload: { currentPassword: PASSWORD, newPassword: 'another good passphrase' },
      remoteAddress: '203.0.113.50',
    });
    assert.equal(change.statusCode, 204, change.body);
  });
});

describe('finding 1: TRUST_PROXY', () => {
  for (const trust of ['127.0.0.1/32', '1'])
    test(`behind a proxy (TRUST_PROXY=${trust}), one client spraying wrong sign-ins does not lock out another client`, async () => {
      const proxied = await startHarness({ TRUST_PROXY: trust }, { now: clockAtWindowStart() });
      try {
        await signUp(proxied, 'bystander@example.com');
        // Every request comes from the proxy's address; X-Forwarded-For names the client.
        const via = (email: string, password: string, client: string) =>
          proxied.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { email, password },
            remoteAddress: '127.0.0.1',
            headers: { 'x-forwarded-for': client },
          } as InjectOptions);
        for (let i = 0; i < LOGIN_PER_ADDRESS; i++)
          assertError(await via(`spray${i}@example.com`, 'guess guess', '198.51.100.66'), 401, 'UNAUTHORIZED');
        assertError(await via('bystander@example.com', PASSWORD, '198.51.100.66'), 429, 'RATE_LIMITED');
        const other = await via('bystander@example.com', PASSWORD, '203.0.113.77');
        assert.equal(other.statusCode, 200, other.body);
      } finally {
        await proxied.close();
      }
    });

  test('a peer that is not a trusted proxy cannot choose its address with X-Forwarded-For', async () => {
    const proxied = await startHarness({ TRUST_PROXY: '10.9.9.9' }, { now: clockAtWindowStart() });
    try {
      for (let i = 0; i < LOGIN_PER_ADDRESS; i++) {
        const res = await proxied.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: `rotate${i}@example.com`, password: 'guess guess' },
          remoteAddress: '198.51.100.9',
          headers: { 'x-forwarded-for': `192.0.2.${i + 1}` },
        });
        assertError(res, 401, 'UNAUTHORIZED');
      }
      const res = await proxied.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'rotate-last@example.com', password: 'guess guess' },
        remoteAddress: '198.51.100.9',
        headers: { 'x-forwarded-for': '192.0.2.250' },
      });
      assertError(res, 429, 'RATE_LIMITED');
    } finally {
      await proxied.close();
    }
  });

  test('TRUST_PROXY takes hops or addresses/CIDRs and refuses "true" and junk with the variable named', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1/128' }).trustProxy, [
      '10.0.0.0/8',
      '127.0.0.1',
      '::1/128',
    ]);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'true' }), /TRUST_PROXY/);
    assert.throws(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' }), /TRUST_PROXY/);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'ingress' }), /TRUST_PROXY/);
  });
});

describe('finding 2: SIGNUP=closed means the operator decides', () => {
  test("a user's organization invitation lets no new email sign up", async () => {
    const closed = await startHarness({ SIGNUP: 'closed' });
    try {
      // A key-only user the operator made.
      const key = await closed.key('keyonly@example.com');
      const orgId = await createOrganization(closed, withApiKey(key), 'Backdoor');
      const invite = await closed.inject({
        method: 'POST',
        url: `/api/organizations/${orgId}/invitations`,
        headers: { 'x-api-key': key },
        payload: { email: 'newcomer@example.com', role: 'member' },
      });
      assert.equal(invite.statusCode, 201, invite.body);
      const token = invite.json().data.url.split('/').at(-1);
      const res = await closed.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: 'newcomer@example.com', password: PASSWORD, invitation: token },
      });
      assertError(res, 403, 'SIGNUP_CLOSED');
      const users = await closed.runtime.store.db.selectFrom('users').select('email').execute();
      assert.deepEqual(
        users.map((u) => u.email),
        ['keyonly@example.com'],
      );
    } finally {
      await closed.close();
    }
  });
});

describe('finding 12 and the headers of every answer', () => {
  test('authenticated JSON is never stored by a cache; every answer has nosniff and a Referrer-Policy', async () => {
    const b = await signUp(h, 'headers@example.com');
    const orgId = await createOrganization(h, b, 'Headers Inc');
    const key = await createKey(h, b, 'laptop');
    const answers = {
      session: await h.inject({ method: 'GET', url: '/api/auth/session', headers: b.headers() }),
      signIn: await signIn(h, 'headers@example.com', PASSWORD, '203.0.113.90'),
      keys: await h.inject({ method: 'GET', url: '/api/keys', headers: b.headers() }),
      organizations: await h.inject({ method: 'GET', url: '/api/organizations', headers: b.headers() }),
      members: await h.inject({ method: 'GET', url: `/api/organizations/${orgId}/members`, headers: b.headers() }),
      assistants: await h.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': key.key } }),
      usage: await h.inject({
        method: 'GET',
        url: '/api/v1/assistants/00000000-0000-4000-8000-000000000000/usage',
        headers: { 'x-api-key': key.key },
      }),
      unauthorized: await h.inject({ method: 'GET', url: '/api/keys' }),
    };
    for (const [name, res] of Object.entries(answers)) {
      assert.ok(res.statusCode < 500, `${name}: ${res.body}`);
      assert.equal(res.headers['cache-control'], 'no-store', name);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', name);
      assert.equal(res.headers['referrer-policy'], 'no-referrer', name);
    }
    const health = await h.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.headers['x-content-type-options'], 'nosniff');
    assert.equal(health.headers['referrer-policy'], 'no-referrer');
    const missing = await h.inject({ method: 'GET', url: '/no/such/thing' });
    assert.equal(missing.headers['x-content-type-options'], 'nosniff');
  });
});

describe('API keys and a password change', () => {
  test('keys survive a plain password change; with revokeKeys: true every key the user made stops at once', async () => {
    const u = await signUp(h, 'leaked@example.com');
    const org = await createOrganization(h, u, 'Leaky');
    const personal = await createKey(h, u, 'personal');
    const forOrg = await createKey(h, u, 'org', org);
    const bystander = await signUp(h, 'bystander-keys@example.com');
    const theirs = await createKey(h, bystander, 'theirs');
    const works = async (k: string) =>
      (await h.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': k } })).statusCode;
    const change = (currentPassword: string, newPassword: string, revokeKeys?: boolean) =>
      h.inject({
        method: 'POST',
        url: '/api/auth/password',
        headers: u.headers({ write: true }),
        payload: { currentPassword, newPassword, ...(revokeKeys === undefined ? {} : { revokeKeys }) },
      });
    assert.equal((await change(PASSWORD, 'second passphrase here')).statusCode, 204);
    assert.equal(await works(personal.key), 200, 'a plain change keeps the keys');
    assert.equal(await works(forOrg.key), 200);
    assertError(await change('wrong one entirely', 'third passphrase here', true), 403, 'FORBIDDEN');
    assert.equal(await works(personal.key), 200, 'a refused change revokes nothing');
    assert.equal((await change('second passphrase here', 'third passphrase here', true)).statusCode, 204);
    assert.equal(await works(personal.key), 401);
    assert.equal(await works(forOrg.key), 401);
    assert.equal(await works(theirs.key), 200, "another user's keys are untouched");
    const keys = await h.inject({ method: 'GET', url: '/api/keys', headers: u.headers() });
    assert.ok(keys.json().data.every((k: { revokedAt: string | null }) => k.revokedAt !== null));
  });
});
