// Issue 28, finding 3: limits hold per person as a user reads them. Keys and organizations are
// capped per person, and neither multiplies the per-minute rate limit or the slot cap: 5 keys of one
// user (personal or for organizations) share one budget, one person's organizations share one slot
// cap. The finding's numbers at small scale. Runs on SQLite and, with with-postgres.sh, on PostgreSQL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { harnessFor, startHarness, type Harness } from './helpers/harness.js';
import { assertError } from './helpers/api.js';
import { createKey, createOrganization, signUp } from './helpers/accounts.js';
import { loadConfig } from '../src/index.js';

const RATE = 6;
let h: Harness;
before(async () => {
  h = await startHarness({
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_KEYS_PER_USER: '4',
    MAX_ORGANIZATIONS_PER_USER: '2',
    MAX_SLOTS_PER_USER: '3',
  });
});
after(async () => h?.close());

describe('caps per person', () => {
  test('MAX_KEYS_PER_USER counts live keys, personal and for organizations, together; revoking frees one', async () => {
    const u = await signUp(h, 'keys@example.com');
    const org = await createOrganization(h, u, 'Keys Org');
    const made = [
      await createKey(h, u, 'one'),
      await createKey(h, u, 'two', org),
      await createKey(h, u, 'three'),
      await createKey(h, u, 'four', org),
    ];
    const more = (organizationId?: string) =>
      h.inject({
        method: 'POST',
        url: '/api/keys',
        headers: u.headers({ write: true }),
        payload: { name: 'five', ...(organizationId ? { organizationId } : {}) },
      });
    const refused = await more();
    assertError(refused, 409, 'QUOTA_EXCEEDED');
    assert.deepEqual(refused.json().error.details, { limit: 4, what: 'keys' });
    assertError(await more(org), 409, 'QUOTA_EXCEEDED');
    // Concurrent creations cannot pass the cap together either.
    const revoke = await h.inject({
      method: 'DELETE',
      url: `/api/keys/${made[0]!.id}`,
      headers: u.headers({ write: true }),
    });
    assert.ok(revoke.statusCode < 300, revoke.body);
    const burst = await Promise.all(Array.from({ length: 5 }, () => more()));
    assert.deepEqual(
      burst.map((r) => r.statusCode).sort(),
      [201, 409, 409, 409, 409],
      burst.map((r) => r.body).join('\n'),
    );
  });

  test('MAX_ORGANIZATIONS_PER_USER: a third organization is refused with 409 QUOTA_EXCEEDED', async () => {
    const u = await signUp(h, 'orgs@example.com');
    await createOrganization(h, u, 'First');
    await createOrganization(h, u, 'Second');
    const res = await h.inject({
      method: 'POST',
      url: '/api/organizations',
      headers: u.headers({ write: true }),
      payload: { name: 'Third' },
    });
    assertError(res, 409, 'QUOTA_EXCEEDED');
    assert.deepEqual(res.json().error.details, { limit: 2, what: 'organizations' });
    assert.equal(
      (await h.runtime.store.db.selectFrom('organizations').select('name').where('name', '=', 'Third').execute())
        .length,
      0,
    );
  });

  test('the defaults are documented numbers, and 0 turns a cap off', () => {
    const c = loadConfig({});
    assert.equal(c.maxKeysPerUser, 50);
    assert.equal(c.maxOrganizationsPerUser, 10);
    assert.equal(loadConfig({ MAX_KEYS_PER_USER: '0' }).maxKeysPerUser, 0);
    assert.throws(() => loadConfig({ MAX_ORGANIZATIONS_PER_USER: '-1' }), /MAX_ORGANIZATIONS_PER_USER/);
  });
});

describe('the rate limit counts per person', () => {
  test(`${RATE}/min holds across one person's personal keys, organization keys and session together`, async (t) => {
    // The control plane's clock stands in the middle of one minute: with the real clock a window that
    // ended between two requests reset the count (seen once: '5' !== '1').
    const middle = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
    const h = await harnessFor(t, { RATE_LIMIT_PER_MINUTE: String(RATE) }, { now: () => middle });
    const u = await signUp(h, 'rate@example.com');
    const org = await createOrganization(h, u, 'Rate Org');
    // Making the keys and the organization were requests of this person too: a fresh minute for the
    // count would make the test depend on the clock, so count what is left instead.
    const keys = [await createKey(h, u, 'a'), await createKey(h, u, 'b', org)];
    const asKey = (k: string) => h.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': k } });
    const first = await asKey(keys[0]!.key);
    assert.equal(first.statusCode, 200, first.body);
    let left = Number(first.headers['ratelimit-remaining']);
    assert.ok(left < RATE - 1, 'the sign-up session and key creations were counted for the same person');
    const callers = [
      () => asKey(keys[1]!.key),
      () => h.inject({ method: 'GET', url: '/api/v1/assistants', headers: u.headers() }),
      () => asKey(keys[0]!.key),
    ];
    let i = 0;
    while (left > 0) {
      const res = await callers[i++ % callers.length]!();
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(Number(res.headers['ratelimit-remaining']), left - 1);
      left--;
    }
    // Whichever key or the session: the person's budget is spent.
    for (const call of callers) assertError(await call(), 429, 'RATE_LIMITED');
    // Another person is not affected.
    const other = await signUp(h, 'rate-other@example.com');
    const res = await h.inject({ method: 'GET', url: '/api/v1/assistants', headers: other.headers() });
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('the slot cap counts per person', () => {
  test("one person's slots across the organizations they own stop at MAX_SLOTS_PER_USER", async (t) => {
    const capped = await harnessFor(t, { MAX_SLOTS_PER_USER: '3', MAX_ORGANIZATIONS_PER_USER: '5' });
    const u = await signUp(capped, 'slots@example.com');
    const orgs = [
      await createOrganization(capped, u, 'S1'),
      await createOrganization(capped, u, 'S2'),
      await createOrganization(capped, u, 'S3'),
    ];
    const buy = (org?: string) =>
      capped.inject({
        method: 'POST',
        url: '/api/v1/assistants/purchase',
        headers: u.headers({ write: true, ...(org ? { org } : {}) }),
        payload: { apiMode: 'byok' },
      });
    const all = await Promise.all([buy(), ...orgs.map((o) => buy(o)), ...orgs.map((o) => buy(o))]);
    assert.deepEqual(
      all.map((r) => r.statusCode).sort(),
      [201, 201, 201, 409, 409, 409, 409],
      all.map((r) => r.body).join('\n'),
    );
    const held = await capped.runtime.store.db.selectFrom('deployments').select('id').execute();
    assert.equal(held.length, 3);
  });
});
