// Issue 28, finding 9: an organization's callbacks are signed with the organization's own secret,
// which every owner can read and rotate, and which still verifies them after the buying member has
// left. Checked with the official Standard Webhooks library over real deliveries from the job
// runner. Runs on SQLite and, with with-postgres.sh, on PostgreSQL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { startHarness, type Harness } from './helpers/harness.js';
import { activationBody, assertError, pay } from './helpers/api.js';
import { createOrganization, signUp, type Browser } from './helpers/accounts.js';
import { startRecorder, type Recorded } from './helpers/callback-receiver.js';

let h: Harness;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
let got: Recorded[] = [];
let hook = '';

before(async () => {
  h = await startHarness({ CALLBACK_ALLOW_INSECURE: 'true' });
  recorder = await startRecorder();
  ({ got, url: hook } = recorder);
});
after(async () => {
  await h?.close();
  await recorder?.close();
});

/** The first delivery from `from` on whose (unverified) status is `want`. */
async function waitFor(want: string, from = 0): Promise<Recorded> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const g = got.slice(from).find((x) => JSON.parse(x.body).data.status === want);
    if (g) return g;
    assert.ok(Date.now() < deadline, `no "${want}" callback: ${got.map((x) => x.body).join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const api = (b: Browser, method: 'GET' | 'POST' | 'DELETE', url: string, org?: string, payload?: object) =>
  h.inject({ method, url, headers: b.headers({ write: method !== 'GET', ...(org ? { org } : {}) }), payload });

const status = (g: Recorded, secret: string) =>
  (new Webhook(secret).verify(g.body, g.headers) as { data: { status: string } }).data.status;

test("an organization's callbacks verify with its own secret after the buyer leaves; any owner rotates it", async () => {
  const alice = await signUp(h, 'org-owner@example.com');
  const bob = await signUp(h, 'org-buyer@example.com');
  const carol = await signUp(h, 'org-coowner@example.com');
  const org = await createOrganization(h, alice, 'Signed');
  for (const [who, role] of [
    [bob, 'member'],
    [carol, 'owner'],
  ] as const) {
    const inv = await api(alice, 'POST', `/api/organizations/${org}/invitations`, undefined, {
      email: who.email,
      role,
    });
    assert.equal(inv.statusCode, 201, inv.body);
    const token = inv.json().data.url.split('/').at(-1);
    const ok = await api(who, 'POST', `/api/invitations/${token}/accept`);
    assert.equal(ok.statusCode, 200, ok.body);
  }

  // Bob, a member, buys and activates an assistant for the organization with a callback URL.
  const bought = await api(bob, 'POST', '/api/v1/assistants/purchase', org, { apiMode: 'byok' });
  assert.equal(bought.statusCode, 201, bought.body);
  const { deploymentId, checkoutUrl } = bought.json().data;
  await pay(h, checkoutUrl);
  const activated = await api(
    bob,
    'POST',
    `/api/v1/assistants/${deploymentId}/activate`,
    org,
    activationBody('byok', { callbackUrl: hook }),
  );
  assert.equal(activated.statusCode, 200, activated.body);
  await h.runtime.idle();
  await waitFor('active');

  // Owners read the organization's secret; a member may not.
  const secretRes = await api(alice, 'GET', `/api/organizations/${org}/callback-secret`);
  assert.equal(secretRes.statusCode, 200, secretRes.body);
  assert.equal(secretRes.headers['cache-control'], 'no-store');
  const orgSecret: string = secretRes.json().data.secret;
  assert.match(orgSecret, /^whsec_/);
  assert.equal((await api(carol, 'GET', `/api/organizations/${org}/callback-secret`)).json().data.secret, orgSecret);
  assertError(await api(bob, 'GET', `/api/organizations/${org}/callback-secret`), 403, 'FORBIDDEN');
  const bobsOwn = (await api(bob, 'GET', '/api/auth/callback-secret')).json().data.secret;
  for (const g of got) {
    assert.ok(status(g, orgSecret));
    assert.throws(() => new Webhook(bobsOwn).verify(g.body, g.headers), "the buyer's personal secret does not");
  }

  // Bob leaves; Alice stops the assistant: the callback still verifies with the organization's secret.
  const left = await api(bob, 'DELETE', `/api/organizations/${org}/members/${bob.userId}`);
  assert.equal(left.statusCode, 204, left.body);
  const before = got.length;
  const stop = await api(alice, 'POST', `/api/v1/assistants/${deploymentId}/stop`, org);
  assert.equal(stop.statusCode, 200, stop.body);
  await h.runtime.idle();
  assert.equal(status(await waitFor('stopped', before), orgSecret), 'stopped');

  // Carol, another owner, rotates: later callbacks verify with the new secret only.
  const rotated = await api(carol, 'POST', `/api/organizations/${org}/callback-secret/rotate`);
  assert.equal(rotated.statusCode, 200, rotated.body);
  const fresh: string = rotated.json().data.secret;
  assert.notEqual(fresh, orgSecret);
  assertError(await api(bob, 'POST', `/api/organizations/${org}/callback-secret/rotate`), 404, 'NOT_FOUND');
  const n = got.length;
  const redeploy = await api(alice, 'POST', `/api/v1/assistants/${deploymentId}/redeploy`, org);
  assert.equal(redeploy.statusCode, 200, redeploy.body);
  await h.runtime.idle();
  const last = await waitFor('active', n);
  assert.equal(status(last, fresh), 'active');
  assert.throws(() => new Webhook(orgSecret).verify(last.body, last.headers));
  // No secret in any log line.
  assert.ok(!h.logs.join('\n').includes(fresh.slice(6)));
  assert.ok(!h.logs.join('\n').includes(orgSecret.slice(6)));
});
