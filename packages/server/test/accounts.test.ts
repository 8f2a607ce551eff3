// Accounts over HTTP (issue 13): sign-up, sign-in, sessions and their cookie, CSRF, sign-out (one
// and everywhere), password change, the sign-in rate limit, SIGNUP=closed with invitations, and
// API keys managed by their user. Runs on SQLite and, with with-postgres.sh, on PostgreSQL.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { startHarness, type Harness } from './helpers/harness.js';
import { clockAtWindowStart } from './helpers/clock.js';
import { assertError, purchase } from './helpers/api.js';
import { createKey, createOrganization, PASSWORD, sessionCookie, signIn, signUp } from './helpers/accounts.js';
import { inviteToSignUp } from '../src/index.js';
import { sha256Hex } from '../src/platform/crypto/tokens.js';
import { Agent } from 'undici';
import { startRecorder } from './helpers/callback-receiver.js';
import { Webhook } from 'standardwebhooks';
import { showUser } from '../src/index.js';
import { runCallbackJob } from '../src/callbacks/deliver-callback-job.js';
import { LOGIN_PER_ADDRESS, LOGIN_PER_EMAIL_AND_ADDRESS, SIGNUP_PER_ADDRESS } from '../src/accounts/login-limit.js';

let h: Harness;
/** Every body the server sent, to prove no secret is ever in one (except a new key, once). */
const bodies: string[] = [];
const secrets: string[] = [PASSWORD];
/** Callback secrets: only in the answers of GET /api/auth/callback-secret, never in a log line. */
const callbackSecrets: string[] = [];

/** Every answer of `harness` is kept in `bodies` (the secrets check reads them). */
function recording(harness: Harness): Harness {
  const inject = harness.inject;
  harness.inject = (async (opts: InjectOptions) => {
    const res = await inject(opts);
    bodies.push(`${JSON.stringify(res.headers)} ${res.body}`);
    return res;
  }) as unknown as typeof inject;
  return harness;
}

before(async () => {
  h = recording(await startHarness());
});
after(async () => h.close());

const session = (cookie: string) =>
  h.inject({ method: 'GET', url: '/api/auth/session', headers: { cookie: `berth_session=${cookie}` } });

describe('sign-up, sign-in, session', () => {
  test('sign-up answers the user and a CSRF token and sets an HttpOnly, SameSite=Lax session cookie', async () => {
    const res = await h.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: 'Ada@Example.com', password: PASSWORD },
    });
    assert.equal(res.statusCode, 201, res.body);
    const data = res.json().data;
    assert.deepEqual(Object.keys(data).sort(), ['csrfToken', 'user']);
    assert.deepEqual(Object.keys(data.user).sort(), ['createdAt', 'email', 'id']);
    assert.equal(data.user.email, 'ada@example.com');
    const c = res.cookies.find((x) => x.name === 'berth_session')!;
    assert.ok(c);
    secrets.push(c.value);
    assert.equal(c.httpOnly, true);
    assert.equal(c.sameSite, 'Lax');
    assert.equal(c.path, '/');
    assert.equal(c.secure, undefined, 'no Secure over plain http');
    assert.ok(c.maxAge! >= 29 * 24 * 3600);
    const s = await session(c.value);
    assert.equal(s.statusCode, 200, s.body);
    assert.equal(s.json().data.user.email, 'ada@example.com');
    assert.equal(s.json().data.csrfToken, data.csrfToken);
    const renewed = s.cookies.find((x) => x.name === 'berth_session');
    assert.equal(renewed?.value, c.value, 'the session read renews the same cookie');
    assert.equal(renewed?.httpOnly, true);
    assert.deepEqual(s.json().data.organizations, []);
    // Only the token's hash is stored.
    const rows = await h.runtime.store.db.selectFrom('sessions').selectAll().execute();
    assert.ok(rows.every((r) => r.token_hash !== c.value && !JSON.stringify(r).includes(c.value)));
    const user = await h.runtime.store.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'ada@example.com')
      .executeTakeFirstOrThrow();
    assert.match(user.password_hash!, /^\$argon2id\$/);
  });

  test('the cookie is Secure when PUBLIC_BASE_URL is https', async () => {
    const tls = await startHarness({ PUBLIC_BASE_URL: 'https://berth.example' });
    try {
      const res = await tls.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: 'tls@example.com', password: PASSWORD },
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.cookies.find((x) => x.name === 'berth_session')?.secure, true);
    } finally {
      await tls.close();
    }
  });

  test('an existing email → 409 CONFLICT that says only that; a short password or a bad email → 400', async () => {
    await signUp(h, 'taken@example.com');
    const res = await h.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: 'TAKEN@example.com', password: 'another password' },
    });
    assertError(res, 409, 'CONFLICT');
    assert.equal(res.json().error.message, 'An account with this email exists.');
    assertError(
      await h.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: 'short@example.com', password: 'short' },
      }),
      400,
      'INVALID_REQUEST',
    );
    assertError(
      await h.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: 'not-an-email', password: PASSWORD },
      }),
      400,
      'INVALID_INPUT',
    );
  });

  test('sign-in: a wrong password and an unknown email get the same 401; the right one a new session', async () => {
    await signUp(h, 'grace@example.com');
    const wrong = await signIn(h, 'grace@example.com', 'wrong password!');
    assertError(wrong, 401, 'UNAUTHORIZED');
    const unknown = await signIn(h, 'nobody@example.com');
    assertError(unknown, 401, 'UNAUTHORIZED');
    assert.equal(wrong.json().error.message, unknown.json().error.message);
    assert.equal(wrong.cookies.length, 0);
    const ok = await signIn(h, 'Grace@example.com ');
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().data.user.email, 'grace@example.com');
    assert.equal((await session(sessionCookie(ok))).statusCode, 200);
  });

  test('no cookie, an unknown cookie, and an API key on the session routes → 401', async () => {
    assertError(await h.inject({ method: 'GET', url: '/api/auth/session' }), 401, 'UNAUTHORIZED');
    assertError(await session('x'.repeat(43)), 401, 'UNAUTHORIZED');
    const key = await h.key();
    assertError(
      await h.inject({ method: 'GET', url: '/api/auth/session', headers: { 'x-api-key': key } }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('CSRF, sign-out and password change', () => {
  test('a cookie write without the CSRF header (or with a wrong one) → 403 FORBIDDEN and nothing changes', async () => {
    const b = await signUp(h, 'csrf@example.com');
    const lastFlipped = `${b.csrf.slice(0, -1)}${b.csrf.endsWith('0') ? '1' : '0'}`;
    for (const csrf of [undefined, 'wrong', lastFlipped]) {
      const headers = { cookie: `berth_session=${b.cookie}`, ...(csrf ? { 'x-berth-csrf': csrf } : {}) };
      assertError(await h.inject({ method: 'POST', url: '/api/auth/logout', headers }), 403, 'FORBIDDEN');
      assertError(
        await h.inject({ method: 'POST', url: '/api/keys', headers, payload: { name: 'x' } }),
        403,
        'FORBIDDEN',
      );
      assertError(
        await h.inject({ method: 'POST', url: '/api/v1/assistants/purchase', headers, payload: { apiMode: 'byok' } }),
        403,
        'FORBIDDEN',
      );
    }
    assert.equal((await session(b.cookie)).statusCode, 200, 'still signed in');
    const keys = await h.inject({ method: 'GET', url: '/api/keys', headers: b.headers() });
    assert.deepEqual(keys.json().data, []);
    // The CSRF token of one session does not open another.
    const other = await signIn(h, 'csrf@example.com');
    const wrongSession = { cookie: `berth_session=${sessionCookie(other)}`, 'x-berth-csrf': b.csrf };
    assertError(await h.inject({ method: 'POST', url: '/api/auth/logout', headers: wrongSession }), 403, 'FORBIDDEN');
  });

  test('sign-out ends this session only and clears the cookie', async () => {
    const b = await signUp(h, 'out@example.com');
    const other = sessionCookie(await signIn(h, 'out@example.com'));
    const res = await h.inject({ method: 'POST', url: '/api/auth/logout', headers: b.headers({ write: true }) });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.cookies.find((c) => c.name === 'berth_session')?.value, '');
    assertError(await session(b.cookie), 401, 'UNAUTHORIZED');
    assert.equal((await session(other)).statusCode, 200);
  });

  test('sign-out everywhere ends every session of the user, not of others', async () => {
    const b = await signUp(h, 'all@example.com');
    const second = sessionCookie(await signIn(h, 'all@example.com'));
    const bystander = await signUp(h, 'bystander@example.com');
    const res = await h.inject({ method: 'POST', url: '/api/auth/logout-all', headers: b.headers({ write: true }) });
    assert.equal(res.statusCode, 204, res.body);
    assertError(await session(b.cookie), 401, 'UNAUTHORIZED');
    assertError(await session(second), 401, 'UNAUTHORIZED');
    assert.equal((await session(bystander.cookie)).statusCode, 200);
  });

  test('password change needs the current password and ends every other session', async () => {
    const b = await signUp(h, 'pw@example.com');
    const other = sessionCookie(await signIn(h, 'pw@example.com'));
    const change = (currentPassword: string) =>
      h.inject({
        method: 'POST',
        url: '/api/auth/password',
        headers: b.headers({ write: true }),
        payload: { currentPassword, newPassword: 'a brand new passphrase' },
      });
    assertError(await change('not the password'), 403, 'FORBIDDEN');
    assert.equal((await session(other)).statusCode, 200, 'a refused change ends nothing');
    const res = await change(PASSWORD);
    assert.equal(res.statusCode, 204, res.body);
    secrets.push('a brand new passphrase');
    assert.equal((await session(b.cookie)).statusCode, 200, 'this session goes on');
    assertError(await session(other), 401, 'UNAUTHORIZED');
    assertError(await signIn(h, 'pw@example.com'), 401, 'UNAUTHORIZED');
    assert.equal((await signIn(h, 'pw@example.com', 'a brand new passphrase')).statusCode, 200);
  });
});

let limited: Harness;
before(async () => {
  limited = recording(await startHarness({}, { now: clockAtWindowStart() }));
});
after(async () => limited.close());

describe('sign-in rate limit', () => {
  test(`more than ${LOGIN_PER_EMAIL_AND_ADDRESS} attempts per email from one address → 429 RATE_LIMITED with Retry-After, even with the right password; other addresses still sign in`, async () => {
    await signUp(limited, 'limited@example.com');
    for (let i = 0; i < LOGIN_PER_EMAIL_AND_ADDRESS; i++) {
      assertError(await signIn(limited, 'limited@example.com', 'wrong password!', '192.0.2.10'), 401, 'UNAUTHORIZED');
    }
    const res = await signIn(limited, 'limited@example.com', PASSWORD, '192.0.2.10');
    assertError(res, 429, 'RATE_LIMITED');
    assert.ok(Number(res.headers['retry-after']) >= 1);
    // The owner from another address is not locked out by someone else's guesses.
    assert.equal((await signIn(limited, 'limited@example.com', PASSWORD, '192.0.2.11')).statusCode, 200);
    // Another email from the first address still gets its answer.
    await signUp(limited, 'unlimited@example.com');
    assert.equal((await signIn(limited, 'unlimited@example.com', PASSWORD, '192.0.2.10')).statusCode, 200);
  });

  test(`more than ${LOGIN_PER_ADDRESS} attempts from one address → 429, whatever the emails`, async () => {
    const address = '198.51.100.7';
    await signUp(limited, 'grace@example.com');
    for (let i = 0; i < LOGIN_PER_ADDRESS; i++) {
      const res = await signIn(limited, `spray${i}@example.com`, 'guess guess guess', address);
      assert.equal(res.statusCode, 401, res.body);
    }
    assertError(await signIn(limited, 'grace@example.com', PASSWORD, address), 429, 'RATE_LIMITED');
    assert.equal((await signIn(limited, 'grace@example.com', PASSWORD, '198.51.100.8')).statusCode, 200);
  });
});

describe('sign-up rate limit', () => {
  test(`more than ${SIGNUP_PER_ADDRESS} sign-ups from one address → 429 RATE_LIMITED`, async () => {
    const from = (i: number) =>
      limited.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: `many${i}@example.com`, password: PASSWORD },
        remoteAddress: '203.0.113.9',
      });
    for (let i = 0; i < SIGNUP_PER_ADDRESS; i++) assert.equal((await from(i)).statusCode, 201);
    const res = await from(SIGNUP_PER_ADDRESS);
    assertError(res, 429, 'RATE_LIMITED');
    assert.ok(Number(res.headers['retry-after']) >= 1);
  });
});

describe('concurrent sign-ups with one email', () => {
  test('exactly one account, the other gets 409, never a 500', async () => {
    const tries = await Promise.all(
      Array.from({ length: 4 }, () =>
        h.inject({
          method: 'POST',
          url: '/api/auth/signup',
          payload: { email: 'race@example.com', password: PASSWORD },
        }),
      ),
    );
    const statuses = tries.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409], tries.map((r) => r.body).join('\n'));
    const rows = await h.runtime.store.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'race@example.com')
      .execute();
    assert.equal(rows.length, 1);
  });
});

describe('SIGNUP=closed', () => {
  test('refuses without an invitation, accepts with one made for the email, once', async () => {
    const closed = await startHarness({ SIGNUP: 'closed' });
    try {
      const signup = (email: string, invitation?: string) =>
        closed.inject({
          method: 'POST',
          url: '/api/auth/signup',
          payload: { email, password: PASSWORD, ...(invitation ? { invitation } : {}) },
        });
      assertError(await signup('eve@example.com'), 403, 'SIGNUP_CLOSED');
      const deps = {
        invitations: closed.runtime.services.accounts.invitations,
        now: () => new Date(),
        publicBaseUrl: 'http://berth.test',
      };
      const { url } = await inviteToSignUp(deps, 'Eve@example.com');
      assert.match(url, /^http:\/\/berth\.test\/signup\?invitation=[A-Za-z0-9]{32}$/);
      const token = new URL(url).searchParams.get('invitation')!;
      assertError(await signup('mallory@example.com', token), 403, 'SIGNUP_CLOSED');
      assertError(await signup('eve@example.com', 'not-a-token'), 403, 'SIGNUP_CLOSED');
      const ok = await signup('eve@example.com', token);
      assert.equal(ok.statusCode, 201, ok.body);
      assertError(await signup('eve@example.com', token), 403, 'SIGNUP_CLOSED');
      assert.equal((await closed.runtime.store.db.selectFrom('users').selectAll().execute()).length, 1);
      assert.ok(
        !JSON.stringify(await closed.runtime.store.db.selectFrom('invitations').selectAll().execute()).includes(token),
      );
    } finally {
      await closed.close();
    }
  });
});

describe('users the operator made with admin create-key', () => {
  test('have no password: sign-up is a 409, unless the operator invites that email; the old key keeps working', async () => {
    const key = await h.key('legacy@example.com');
    secrets.push(key);
    assertError(await signIn(h, 'legacy@example.com'), 401, 'UNAUTHORIZED');
    const taken = await h.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: 'legacy@example.com', password: PASSWORD },
    });
    assertError(taken, 409, 'CONFLICT');
    const deps = { invitations: h.runtime.services.accounts.invitations, now: () => new Date(), publicBaseUrl: '' };
    const invitation = new URL((await inviteToSignUp(deps, 'legacy@example.com')).url, 'http://x').searchParams.get(
      'invitation',
    )!;
    const b = await signUp(h, 'legacy@example.com', PASSWORD, invitation);
    const viaOldKey = await h.inject({ method: 'GET', url: '/api/keys', headers: { 'x-api-key': key } });
    assert.equal(viaOldKey.statusCode, 200);
    const keys = (await h.inject({ method: 'GET', url: '/api/keys', headers: b.headers() })).json().data;
    assert.equal(keys.length, 1, "the operator's key is this user's");
    assert.equal(keys[0].prefix, key.slice(0, 12));
    assert.equal((await signIn(h, 'legacy@example.com')).statusCode, 200);
  });
});

describe('API keys managed by their user', () => {
  test('create shows the secret once; the list has name, prefix, times and no secret', async () => {
    const b = await signUp(h, 'keys@example.com');
    const created = await createKey(h, b, 'laptop');
    secrets.push(created.key);
    assert.match(created.key, /^berth_[A-Za-z0-9]{40}$/);
    assert.equal(created.prefix, created.key.slice(0, 12));
    assert.equal(created.organizationId, null);
    const list = await h.inject({ method: 'GET', url: '/api/keys', headers: b.headers() });
    assert.equal(list.statusCode, 200, list.body);
    const [k] = list.json().data;
    assert.deepEqual(Object.keys(k).sort(), [
      'createdAt',
      'id',
      'lastUsedAt',
      'name',
      'organizationId',
      'prefix',
      'revokedAt',
    ]);
    assert.equal(k.name, 'laptop');
    assert.equal(k.prefix, created.prefix);
    assert.equal(k.lastUsedAt, null);
    assert.ok(!list.body.includes(created.key));
    const rows = await h.runtime.store.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).execute();
    assert.ok(!JSON.stringify(rows).includes(created.key), 'stored as a hash');

    // Using it records the last use (at most once a minute), and it sees the user's deployments.
    const bought = await purchase(h, created.key);
    const after = (await h.inject({ method: 'GET', url: '/api/keys', headers: b.headers() })).json().data[0];
    assert.ok(after.lastUsedAt, 'last use recorded');
    const viaCookie = await h.inject({ method: 'GET', url: '/api/v1/assistants', headers: b.headers() });
    assert.deepEqual(
      viaCookie.json().data.map((d: { id: string }) => d.id),
      [bought.deploymentId],
    );

    // The same key management through the key itself (the CLI's way).
    const viaKey = await h.inject({ method: 'GET', url: '/api/keys', headers: { 'x-api-key': created.key } });
    assert.equal(viaKey.json().data.length, 1);

    const revoke = await h.inject({
      method: 'DELETE',
      url: `/api/keys/${created.id}`,
      headers: b.headers({ write: true }),
    });
    assert.equal(revoke.statusCode, 204, revoke.body);
    assertError(
      await h.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': created.key } }),
      401,
      'UNAUTHORIZED',
    );
    const revoked = (await h.inject({ method: 'GET', url: '/api/keys', headers: b.headers() })).json().data[0];
    assert.ok(revoked.revokedAt);
  });

  test("another user's key cannot be revoked or seen: 404", async () => {
    const owner = await signUp(h, 'keyowner@example.com');
    const other = await signUp(h, 'keythief@example.com');
    const k = await createKey(h, owner, 'mine');
    secrets.push(k.key);
    assertError(
      await h.inject({ method: 'DELETE', url: `/api/keys/${k.id}`, headers: other.headers({ write: true }) }),
      404,
      'NOT_FOUND',
    );
    assert.deepEqual((await h.inject({ method: 'GET', url: '/api/keys', headers: other.headers() })).json().data, []);
    assert.equal(
      (await h.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': k.key } })).statusCode,
      200,
    );
  });

  test('the assistants API takes the cookie (reads without, writes with the CSRF header) but still no Bearer on 1-9', async () => {
    const b = await signUp(h, 'dash@example.com');
    const buy = await h.inject({
      method: 'POST',
      url: '/api/v1/assistants/purchase',
      headers: b.headers({ write: true }),
      payload: { apiMode: 'byok' },
    });
    assert.equal(buy.statusCode, 201, buy.body);
    const id = buy.json().data.deploymentId;
    const get = await h.inject({ method: 'GET', url: `/api/v1/assistants/${id}`, headers: b.headers() });
    assert.equal(get.statusCode, 200, get.body);
    assert.equal(get.json().data.organizationId, null);
    const k = await createKey(h, b, 'bearer');
    secrets.push(k.key);
    assertError(
      await h.inject({ method: 'GET', url: `/api/v1/assistants/${id}`, headers: { authorization: `Bearer ${k.key}` } }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('housekeeping', () => {
  test('drops expired sessions, keeps live ones and the sign-in counters of the current window', async () => {
    const live = await signUp(h, 'housekeeping@example.com');
    const stale = sessionCookie(await signIn(h, 'housekeeping@example.com'));
    const db = h.runtime.store.db;
    const past = new Date(Date.now() - 1000).toISOString();
    await db.updateTable('sessions').set({ expires_at: past }).where('token_hash', '=', sha256Hex(stale)).execute();
    assertError(await session(stale), 401, 'UNAUTHORIZED');
    const swept = await h.runtime.reconciler.housekeeping(Date.now());
    assert.ok(swept.sessions >= 1);
    assert.equal(
      await db.selectFrom('sessions').selectAll().where('token_hash', '=', sha256Hex(stale)).executeTakeFirst(),
      undefined,
    );
    assert.equal((await session(live.cookie)).statusCode, 200);
    const counters = await db.selectFrom('rate_limit_counters').select('key').where('key', 'like', 'login:%').execute();
    assert.ok(counters.length > 0, 'sign-in attempts of this window are still counted');
  });
});

describe('the callback secret', () => {
  const url = '/api/auth/callback-secret';
  const operatorView = (email: string) =>
    showUser({ users: h.runtime.services.users, secrets: h.runtime.secrets, now: () => new Date() }, email);

  /** Delivers one callback for `userId` to a local receiver, exactly as the job runner does. */
  async function realCallback(userId: string) {
    const recorder = await startRecorder();
    const dispatcher = new Agent();
    try {
      const event = { type: 'deployment.status', timestamp: new Date().toISOString(), data: { status: 'active' } };
      const job = {
        id: 'secret-test',
        kind: 'callback' as const,
        deploymentId: null,
        generation: null,
        attempts: 0,
        payload: { url: recorder.url, userId, sequence: 1, event },
      };
      const outcome = await runCallbackJob({ ...h.runtime.services, callbackAllowInsecure: true }, dispatcher, job);
      assert.deepEqual(outcome, { done: true });
      return recorder.got[0]!;
    } finally {
      await dispatcher.close();
      await recorder.close();
    }
  }

  test("a signed-in user gets their own secret, never cached, and it verifies that user's callbacks", async () => {
    const ada = await signUp(h, 'secret-ada@example.com');
    const res = await h.inject({ method: 'GET', url, headers: ada.headers() });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const { secret } = res.json().data;
    callbackSecrets.push(secret);
    assert.match(secret, /^whsec_/);
    assert.equal(secret, (await operatorView('secret-ada@example.com')).webhookSecret);
    const delivered = await realCallback(ada.userId);
    assert.equal((new Webhook(secret).verify(delivered.body, delivered.headers) as any).data.status, 'active');

    // Another user gets their own, which does not verify Ada's callbacks.
    const bob = await signUp(h, 'secret-bob@example.com');
    const other = await h.inject({ method: 'GET', url, headers: bob.headers() });
    assert.equal(other.statusCode, 200, other.body);
    const bobs = other.json().data.secret;
    callbackSecrets.push(bobs);
    assert.equal(bobs, (await operatorView('secret-bob@example.com')).webhookSecret);
    assert.notEqual(bobs, secret);
    assert.throws(() => new Webhook(bobs).verify(delivered.body, delivered.headers));

    // A personal key answers its user's secret too.
    const key = await createKey(h, bob, 'ci');
    secrets.push(key.key);
    const byKey = await h.inject({ method: 'GET', url, headers: { 'x-api-key': key.key } });
    assert.equal(byKey.statusCode, 200, byKey.body);
    assert.equal(byKey.json().data.secret, bobs);
    assert.equal(byKey.headers['cache-control'], 'no-store');
  });

  test("an organization's key is refused: the secret is a person's", async () => {
    const carol = await signUp(h, 'secret-carol@example.com');
    const orgId = await createOrganization(h, carol, 'Secretive');
    const orgKey = await createKey(h, carol, 'org', orgId);
    secrets.push(orgKey.key);
    const res = await h.inject({ method: 'GET', url, headers: { 'x-api-key': orgKey.key } });
    assertError(res, 403, 'FORBIDDEN');
    assert.ok(!res.body.includes('whsec_'));
    // Signed in and acting as the organization, Carol still gets her own.
    const asOrg = await h.inject({ method: 'GET', url, headers: carol.headers({ org: orgId }) });
    assert.equal(asOrg.statusCode, 200, asOrg.body);
    assert.equal(asOrg.json().data.secret, (await operatorView('secret-carol@example.com')).webhookSecret);
    callbackSecrets.push(asOrg.json().data.secret);
  });

  test('no cookie and no key → 401; a bad key or an ended session → 401', async () => {
    assertError(await h.inject({ method: 'GET', url }), 401, 'UNAUTHORIZED');
    assertError(await h.inject({ method: 'GET', url, headers: { 'x-api-key': 'berth_nope' } }), 401, 'UNAUTHORIZED');
    assertError(
      await h.inject({ method: 'GET', url, headers: { cookie: 'berth_session=ended' } }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('no secret in any answer or log line', () => {
  test('passwords, session tokens and key secrets appear nowhere (a new key only in its creation answer)', async () => {
    const createdKeyAnswers = bodies.filter((b) => b.includes('"key":"berth_'));
    for (const body of bodies) {
      for (const secret of secrets) {
        if (secret.startsWith('berth_') && createdKeyAnswers.includes(body) && body.includes(`"key":"${secret}"`))
          continue;
        if (!secret.startsWith('berth_') && body.includes('set-cookie') && body.includes(`berth_session=${secret}`))
          continue;
        assert.ok(!body.includes(secret), `a secret in an answer: ${body.slice(0, 200)}`);
      }
    }
    const logs = h.logs.join('\n');
    for (const secret of secrets) assert.ok(!logs.includes(secret), 'a secret in the log');
    assert.ok(callbackSecrets.length >= 3);
    for (const secret of callbackSecrets) {
      assert.ok(!logs.includes(secret), 'a callback secret in the log');
      for (const body of bodies.filter((b) => b.includes(secret)))
        assert.ok(body.includes('"cache-control":"no-store"') && body.includes(`{"data":{"secret":"${secret}"}}`));
    }
    assert.ok(!/password_hash|\$argon2id/.test(logs + bodies.join('\n')));
  });
});
