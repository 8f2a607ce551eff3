// Organizations over HTTP (issue 13): create, invite by link, accept, members, remove; a
// deployment bought with an organization's key belongs to the organization and is visible to its
// keys and to members acting as it, never to personal keys or strangers. SQLite and PostgreSQL.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './helpers/harness.js';
import { assertError, purchase } from './helpers/api.js';
import { createKey, createOrganization, signUp, type Browser } from './helpers/accounts.js';

let h: Harness;
let a: Browser;
let b: Browser;
let stranger: Browser;
let org: string;
let invitationUrl: string;

const api = (headers: Record<string, string>, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  h.inject({ method, url, headers, ...(payload ? { payload } : {}) });

before(async () => {
  h = await startHarness();
  a = await signUp(h, 'alice@example.com');
  b = await signUp(h, 'bob@example.com');
  stranger = await signUp(h, 'stranger@example.com');
});
after(async () => h.close());

describe('organizations and members', () => {
  test('A creates an organization and owns it', async () => {
    const res = await api(a.headers({ write: true }), 'POST', '/api/organizations', { name: 'Acme' });
    assert.equal(res.statusCode, 201, res.body);
    const o = res.json().data;
    assert.equal(o.name, 'Acme');
    assert.equal(o.role, 'owner');
    org = o.id;
    const list = await api(a.headers(), 'GET', '/api/organizations');
    assert.deepEqual(
      list.json().data.map((x: { id: string; role: string }) => [x.id, x.role]),
      [[org, 'owner']],
    );
    const s = await api(a.headers(), 'GET', '/api/auth/session');
    assert.deepEqual(s.json().data.organizations, [{ id: org, name: 'Acme', role: 'owner' }]);
  });

  test('A invites B by link; the link is for B only and works once', async () => {
    const res = await api(a.headers({ write: true }), 'POST', `/api/organizations/${org}/invitations`, {
      email: 'Bob@example.com',
      role: 'member',
    });
    assert.equal(res.statusCode, 201, res.body);
    invitationUrl = res.json().data.url;
    assert.match(invitationUrl, /^http:\/\/berth\.test\/invite\/[A-Za-z0-9]{32}$/);
    const token = invitationUrl.split('/').at(-1)!;
    const accept = (who: Browser) => api(who.headers({ write: true }), 'POST', `/api/invitations/${token}/accept`);
    assertError(await accept(stranger), 403, 'FORBIDDEN');
    const ok = await accept(b);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json().data, { organizationId: org, role: 'member' });
    assertError(await accept(b), 404, 'NOT_FOUND');
    const members = await api(b.headers(), 'GET', `/api/organizations/${org}/members`);
    assert.equal(members.statusCode, 200, members.body);
    assert.deepEqual(
      members.json().data.map((m: { email: string; role: string }) => [m.email, m.role]),
      [
        ['alice@example.com', 'owner'],
        ['bob@example.com', 'member'],
      ],
    );
  });

  test('a member cannot invite or remove others; a stranger sees no such organization', async () => {
    assertError(
      await api(b.headers({ write: true }), 'POST', `/api/organizations/${org}/invitations`, {
        email: 'x@example.com',
        role: 'owner',
      }),
      403,
      'FORBIDDEN',
    );
    assertError(
      await api(b.headers({ write: true }), 'DELETE', `/api/organizations/${org}/members/${a.userId}`),
      403,
      'FORBIDDEN',
    );
    assertError(await api(stranger.headers(), 'GET', `/api/organizations/${org}/members`), 404, 'NOT_FOUND');
    assertError(
      await api(stranger.headers({ write: true }), 'POST', `/api/organizations/${org}/invitations`, {
        email: 'stranger@example.com',
        role: 'owner',
      }),
      404,
      'NOT_FOUND',
    );
    assertError(
      await api(stranger.headers({ write: true }), 'POST', '/api/keys', { name: 'x', organizationId: org }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('slot cap per owner', () => {
  test('MAX_SLOTS_PER_USER counts a person across their own slots and the organizations they own', async () => {
    const capped = await startHarness({ MAX_SLOTS_PER_USER: '2' });
    try {
      const u = await signUp(capped, 'capped@example.com');
      const orgId = await createOrganization(capped, u, 'Capped');
      const otherOrg = await createOrganization(capped, u, 'Capped Too');
      const buy = (headers: Record<string, string>) =>
        capped.inject({ method: 'POST', url: '/api/v1/assistants/purchase', headers, payload: { apiMode: 'byok' } });
      assert.equal((await buy(u.headers({ write: true }))).statusCode, 201);
      assert.equal((await buy(u.headers({ write: true, org: orgId }))).statusCode, 201);
      // A third organization of the same person gets no cap of its own.
      assertError(await buy(u.headers({ write: true, org: otherOrg })), 409, 'QUOTA_EXCEEDED');
      assertError(await buy(u.headers({ write: true })), 409, 'QUOTA_EXCEEDED');
      assertError(await buy(u.headers({ write: true, org: orgId })), 409, 'QUOTA_EXCEEDED');
    } finally {
      await capped.close();
    }
  });
});

describe('deployments of an organization', () => {
  let orgKeyA: string;
  let orgKeyB: string;
  let personalB: string;
  let strangerKey: string;
  let id: string;
  let personalId: string;

  before(async () => {
    orgKeyA = (await createKey(h, a, 'acme ci', org)).key;
    orgKeyB = (await createKey(h, b, 'acme bob', org)).key;
    personalB = (await createKey(h, b, 'bob personal')).key;
    strangerKey = (await createKey(h, stranger, 'stranger')).key;
    id = (await purchase(h, orgKeyA)).deploymentId;
    personalId = (await purchase(h, personalB)).deploymentId;
  });

  const ids = async (headers: Record<string, string>) => {
    const res = await api(headers, 'GET', '/api/v1/assistants');
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.map((d: { id: string }) => d.id);
  };

  test("a slot bought with the organization's key carries its organizationId", async () => {
    const res = await api({ 'x-api-key': orgKeyA }, 'GET', `/api/v1/assistants/${id}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.organizationId, org);
  });

  test('every key of the organization and every member acting as it sees it', async () => {
    assert.deepEqual(await ids({ 'x-api-key': orgKeyB }), [id]);
    assert.equal((await api({ 'x-api-key': orgKeyB }, 'GET', `/api/v1/assistants/${id}`)).statusCode, 200);
    assert.deepEqual(await ids(b.headers({ org })), [id]);
    assert.deepEqual(await ids(a.headers({ org })), [id]);
    const status = await api(b.headers({ org }), 'GET', `/api/v1/assistants/${id}/status`);
    assert.equal(status.statusCode, 200, status.body);
    // A member acting as the organization buys for it.
    const buy = await api(b.headers({ write: true, org }), 'POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
    assert.equal(buy.statusCode, 201, buy.body);
    const bought = buy.json().data.deploymentId;
    assert.equal(
      (await api({ 'x-api-key': orgKeyA }, 'GET', `/api/v1/assistants/${bought}`)).json().data.organizationId,
      org,
    );
    assert.deepEqual((await ids({ 'x-api-key': orgKeyA })).sort(), [id, bought].sort());
  });

  test("personal keys and cookies without the header keep to the user's own deployments", async () => {
    assert.deepEqual(await ids({ 'x-api-key': personalB }), [personalId]);
    assert.deepEqual(await ids(b.headers()), [personalId]);
    assertError(await api({ 'x-api-key': personalB }, 'GET', `/api/v1/assistants/${id}`), 404, 'NOT_FOUND');
    assertError(await api(a.headers(), 'GET', `/api/v1/assistants/${id}`), 404, 'NOT_FOUND');
    // And the organization does not see a member's personal slot.
    assertError(await api({ 'x-api-key': orgKeyA }, 'GET', `/api/v1/assistants/${personalId}`), 404, 'NOT_FOUND');
  });

  test('a stranger gets 404 with a key, and with a cookie claiming the organization', async () => {
    const before = await h.snapshot();
    assertError(await api({ 'x-api-key': strangerKey }, 'GET', `/api/v1/assistants/${id}`), 404, 'NOT_FOUND');
    assertError(await api({ 'x-api-key': strangerKey }, 'POST', `/api/v1/assistants/${id}/stop`), 404, 'NOT_FOUND');
    assertError(await api(stranger.headers({ org }), 'GET', '/api/v1/assistants'), 404, 'NOT_FOUND');
    assertError(await api(stranger.headers({ org }), 'GET', `/api/v1/assistants/${id}`), 404, 'NOT_FOUND');
    assertError(
      await api(stranger.headers({ write: true, org }), 'POST', `/api/v1/assistants/${id}/stop`),
      404,
      'NOT_FOUND',
    );
    // A key cannot be pointed at another organization by the header.
    assertError(
      await api({ 'x-api-key': strangerKey, 'x-berth-organization': org }, 'GET', '/api/v1/assistants'),
      400,
      'INVALID_REQUEST',
    );
    assert.deepEqual(await h.snapshot(), before);
  });

  test("the organization's keys are listed to its members; only owners or creators revoke them", async () => {
    const listed = (await api(b.headers(), 'GET', '/api/keys')).json().data;
    const names = listed.map((k: { name: string }) => k.name).sort();
    assert.deepEqual(names, ['acme bob', 'acme ci', 'bob personal']);
    const ci = listed.find((k: { name: string }) => k.name === 'acme ci');
    assertError(await api(b.headers({ write: true }), 'DELETE', `/api/keys/${ci.id}`), 403, 'FORBIDDEN');
    // An organization's key lists its organization's keys only.
    const viaOrgKey = (await api({ 'x-api-key': orgKeyB }, 'GET', '/api/keys')).json().data;
    assert.deepEqual(viaOrgKey.map((k: { name: string }) => k.name).sort(), ['acme bob', 'acme ci']);
  });

  test('a member who leaves loses the organization: its keys for it are revoked, the header is refused', async () => {
    const leave = await api(b.headers({ write: true }), 'DELETE', `/api/organizations/${org}/members/${b.userId}`);
    assert.equal(leave.statusCode, 204, leave.body);
    assertError(await api({ 'x-api-key': orgKeyB }, 'GET', '/api/v1/assistants'), 401, 'UNAUTHORIZED');
    assertError(await api(b.headers({ org }), 'GET', `/api/v1/assistants/${id}`), 404, 'NOT_FOUND');
    assert.deepEqual(await ids({ 'x-api-key': orgKeyA }).then((x) => x.includes(id)), true);
    // The last owner cannot leave.
    assertError(
      await api(a.headers({ write: true }), 'DELETE', `/api/organizations/${org}/members/${a.userId}`),
      409,
      'CONFLICT',
    );
  });

  test('the chat target cache is per owner: a personal key never reuses an organization entry', async () => {
    // Warm the cache as the organization, then ask with the creator's personal cookie.
    await api({ 'x-api-key': orgKeyA }, 'GET', `/api/v1/assistants/${id}/models`);
    assertError(await api(a.headers(), 'GET', `/api/v1/assistants/${id}/models`), 404, 'NOT_FOUND');
    assertError(await api({ 'x-api-key': strangerKey }, 'GET', `/api/v1/assistants/${id}/models`), 404, 'NOT_FOUND');
  });
});
