// Regressions found by attacking the accounts and dashboard surface as a stranger would
// (clickjacking, the dashboard's fallback page, ...). Each test failed before its fix.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, type Harness } from './helpers/harness.js';
import { assertError, purchase } from './helpers/api.js';
import { createKey, signUp } from './helpers/accounts.js';

let h: Harness;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'berth-attack-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Berth</title>');
  h = await startHarness({}, { dashboardDir: dir });
});
after(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

function directives(header: unknown): Map<string, string> {
  return new Map(
    String(header ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...v]) => [name!, v.join(' ')]),
  );
}

test('every checkout page (Pay button, paid, unknown) forbids framing and scripts', async () => {
  const { checkoutUrl } = await purchase(h, await h.key('buyer@example.com'));
  const path = new URL(checkoutUrl).pathname;
  const pages = [
    await h.inject({ method: 'GET', url: path }),
    await h.inject({ method: 'GET', url: '/checkout/no-such-checkout' }),
    await h.inject({ method: 'POST', url: `${path}/complete` }),
  ];
  for (const res of pages) {
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const csp = directives(res.headers['content-security-policy']);
    assert.equal(csp.get('frame-ancestors'), "'none'", `${res.statusCode} ${res.body.slice(0, 80)}`);
    assert.equal(csp.get('default-src'), "'none'", 'no script of any origin');
    assert.equal(csp.get('form-action'), "'self'");
  }
  assert.match(pages[0]!.body, /id="pay"/);
});

test("the dashboard's fallback page never answers a percent-encoded or upper-case API path", async () => {
  for (const url of ['/%61pi/v1/nope', '/api%2Fnope', '/%2Fapi/nope', '/API/v1/nope', '/%63heckout/x/y']) {
    const res = await h.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 404, `${url}: ${res.body.slice(0, 80)}`);
    assert.match(String(res.headers['content-type']), /json|html/);
    assert.doesNotMatch(res.body, /<title>Berth<\/title>/, url);
  }
  // A path that does not decode is refused, not the page; client routes still get the page.
  const bad = await h.inject({ method: 'GET', url: '/%E0%A4%A' });
  assert.ok([400, 404].includes(bad.statusCode), bad.body);
  assert.equal((await h.inject({ method: 'GET', url: '/keys' })).statusCode, 200);
});

test("an organization's key cannot make its creator join another organization (it acts for its own only)", async () => {
  const owner = await signUp(h, 'owner-a@example.com');
  const x = await signUp(h, 'x@example.com');
  const post = (headers: Record<string, string>, url: string, payload?: object) =>
    h.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
  const orgA = (await post(owner.headers({ write: true }), '/api/organizations', { name: 'A' })).json().data.id;
  const orgB = (await post(x.headers({ write: true }), '/api/organizations', { name: 'B' })).json().data.id;
  const bKey = await createKey(h, x, 'ci of B', orgB);
  const link = (
    await post(owner.headers({ write: true }), `/api/organizations/${orgA}/invitations`, {
      email: 'x@example.com',
      role: 'owner',
    })
  ).json().data.url as string;
  const token = link.split('/').at(-1)!;
  assertError(await post({ 'x-api-key': bKey.key }, `/api/invitations/${token}/accept`), 403, 'FORBIDDEN');
  const members = await h.inject({
    method: 'GET',
    url: `/api/organizations/${orgA}/members`,
    headers: owner.headers(),
  });
  assert.deepEqual(
    members.json().data.map((m: { email: string }) => m.email),
    ['owner-a@example.com'],
  );
  // The person, signed in, still can: the link was not used up by the refusal.
  const ok = await post(x.headers({ write: true }), `/api/invitations/${token}/accept`);
  assert.equal(ok.statusCode, 200, ok.body);
});

test('a sign-in with a NUL or another control character in the email is a 400, never a 500 (PostgreSQL)', async () => {
  for (const email of ['nul\u0000@example.com', 'bell\u0007@example.com']) {
    const res = await h.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'whatever pw' } });
    assertError(res, 400, 'INVALID_REQUEST');
  }
});

test('an email with a lone UTF-16 surrogate is a 400: PostgreSQL would store it as U+FFFD and merge two emails', async () => {
  for (const email of ['\ud800@example.com', 'a\udc00b@example.com']) {
    const signUp = await h.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email, password: 'correct horse battery' },
    });
    assertError(signUp, 400, 'INVALID_REQUEST');
    const login = await h.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: 'whatever pw' },
    });
    assertError(login, 400, 'INVALID_REQUEST');
  }
  // A surrogate pair is one code point (an emoji): a whole character, accepted.
  const emoji = await h.inject({
    method: 'POST',
    url: '/api/auth/signup',
    payload: { email: 'rocket\u{1f680}@example.com', password: 'correct horse battery' },
  });
  assert.equal(emoji.statusCode, 201, emoji.body);
});

test('an owner who is removed cannot send anyone in (or come back) through a link they made before', async () => {
  const a = await signUp(h, 'founder@example.com');
  const b = await signUp(h, 'cofounder@example.com');
  const c = await signUp(h, 'friend-of-b@example.com');
  const post = (who: typeof a, url: string, payload?: object) =>
    h.inject({ method: 'POST', url, headers: who.headers({ write: true }), ...(payload ? { payload } : {}) });
  const invite = async (who: typeof a, org: string, email: string) =>
    ((await post(who, `/api/organizations/${org}/invitations`, { email, role: 'owner' })).json().data.url as string)
      .split('/')
      .at(-1)!;
  const org = (await post(a, '/api/organizations', { name: 'Founders' })).json().data.id as string;
  assert.equal((await post(b, `/api/invitations/${await invite(a, org, b.email)}/accept`)).statusCode, 200);
  const fromB = await invite(b, org, c.email);
  const removed = await h.inject({
    method: 'DELETE',
    url: `/api/organizations/${org}/members/${b.userId}`,
    headers: a.headers({ write: true }),
  });
  assert.equal(removed.statusCode, 204, removed.body);

  const refused = await post(c, `/api/invitations/${fromB}/accept`);
  assertError(refused, 404, 'NOT_FOUND');
  assert.match(refused.json().error.message, /no longer an owner/);
  const members = await h.inject({ method: 'GET', url: `/api/organizations/${org}/members`, headers: a.headers() });
  assert.deepEqual(
    members.json().data.map((m: { email: string }) => m.email),
    ['founder@example.com'],
  );
  // The same person, invited by an owner who still is one, joins.
  assert.equal((await post(c, `/api/invitations/${await invite(a, org, c.email)}/accept`)).statusCode, 200);
});
