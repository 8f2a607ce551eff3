// The owner's view of an assistant's reminders (issue 57 R5) on the agent's admin API: every end
// user's pending ones of that assistant and no other's, cancelled one by one or all at once, behind
// the host's admin token (host mode) or the assistant's gateway token (serve mode).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { hostBed } from './helpers/host-bed.js';
import { GATEWAY, startServe, fakeModel } from './helpers/serve.js';
import { userData } from '../src/storage/user-data.js';
import type { SessionStore } from '../src/storage/sessions.js';

const ADMIN = 'admin-token-for-reminder-admin-0123456789';
const bed = hostBed(ADMIN, 'berth-reminder-admin-');
const HOUR = 3_600_000;

async function call(method: 'GET' | 'DELETE', path: string, token = ADMIN, base = bed.url) {
  const res = await request(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, json: (await res.body.json()) as any };
}

const put = (name: string) =>
  request(`${bed.url}/agents/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      gatewayToken: 'gw-reminder-admin-0123456789',
      model: fakeModel(bed.provider.url),
    }),
  }).then((r) => assert.equal(r.statusCode, 200));

let n = 0;
function add(store: SessionStore, agent: string, user: string, text: string, inMs: number, extra = {}) {
  const id = (0x1000_0000 + n++).toString(16);
  userData(store).schedules.add({
    id,
    agent,
    user,
    chat: `telegram:${user.slice(3)}`,
    text,
    task: false,
    at: null,
    cron: null,
    timezone: null,
    nextAt: Date.now() + inMs,
    ...extra,
  });
  return id;
}

test("host: the owner lists every end user's pending reminders of one assistant, soonest first, and no other's", async () => {
  await put('alpha');
  await put('beta');
  const later = add(bed.store, 'alpha', 'tg:11', 'water the plants', 2 * HOUR);
  const sooner = add(bed.store, 'alpha', 'tg:12', 'summarise the news', HOUR, {
    task: true,
    cron: '0 9 * * *',
    timezone: 'Europe/Berlin',
  });
  add(bed.store, 'beta', 'tg:11', 'not alpha’s', HOUR);
  const res = await call('GET', '/agents/alpha/reminders');
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.json.data.map((r: any) => [r.id, r.user, r.chatId, r.text, r.task, r.cron, r.timezone]),
    [
      [sooner, 'tg:12', '12', 'summarise the news', true, '0 9 * * *', 'Europe/Berlin'],
      [later, 'tg:11', '11', 'water the plants', false, null, null],
    ],
  );
  assert.match(res.json.data[0].at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  assert.equal((await call('GET', '/agents/alpha/reminders', 'wrong-token')).status, 401);
  const nobody = await call('DELETE', '/agents/nobody/reminders/10000000');
  assert.equal(nobody.status, 404);
  assert.equal(nobody.json.error.details, undefined, 'an assistant the host does not run');
});

test('host: one cancelled is gone from the list and from its user’s own; another assistant’s id is not found', async () => {
  await put('gamma');
  const keep = add(bed.store, 'gamma', 'tg:21', 'keep me', HOUR);
  const drop = add(bed.store, 'gamma', 'tg:22', 'drop me', HOUR);
  const foreign = add(bed.store, 'beta', 'tg:21', 'beta keeps this', HOUR);
  const gone = await call('DELETE', `/agents/gamma/reminders/${drop}`);
  assert.equal(gone.status, 200);
  assert.deepEqual(gone.json.data, { removed: 1 });
  assert.deepEqual(
    (await call('GET', '/agents/gamma/reminders')).json.data.map((r: any) => r.id),
    [keep],
  );
  assert.deepEqual(userData(bed.store).schedules.list('gamma', 'tg:22'), [], 'the user’s /reminders is empty too');

  const again = await call('DELETE', `/agents/gamma/reminders/${drop}`);
  assert.equal(again.status, 404);
  assert.match(again.json.error.message, /No pending reminder/);
  assert.deepEqual(again.json.error.details, { missing: 'reminder' }, "the reminder's 404, not the assistant's");
  assert.equal((await call('DELETE', `/agents/gamma/reminders/${foreign}`)).status, 404, "beta's reminder");
  assert.equal(userData(bed.store).schedules.get(foreign)?.status, 'active');
  assert.equal((await call('DELETE', '/agents/gamma/reminders/not-an-id')).status, 404);
});

test('host: clearing all cancels every end user’s reminders of that assistant only, and says how many', async () => {
  await put('delta');
  add(bed.store, 'delta', 'tg:31', 'one', HOUR);
  add(bed.store, 'delta', 'tg:32', 'two', HOUR);
  const other = add(bed.store, 'beta', 'tg:31', 'beta stays', HOUR);
  const res = await call('DELETE', '/agents/delta/reminders');
  assert.equal(res.status, 200);
  assert.deepEqual(res.json.data, { removed: 2 });
  assert.deepEqual((await call('GET', '/agents/delta/reminders')).json.data, []);
  assert.equal(userData(bed.store).schedules.get(other)?.status, 'active');
  assert.deepEqual((await call('DELETE', '/agents/delta/reminders')).json.data, { removed: 0 });
});

test('serve: the same routes at the root behind the gateway token', async () => {
  const s = await startServe();
  try {
    const id = add(s.store, 'test-agent', 'tg:41', 'served', HOUR);
    assert.equal((await call('GET', '/reminders', ADMIN, s.url)).status, 401, 'the gateway token, not another');
    const list = await call('GET', '/reminders', GATEWAY, s.url);
    assert.deepEqual(
      list.json.data.map((r: any) => r.id),
      [id],
    );
    assert.equal((await call('DELETE', `/reminders/${id}`, GATEWAY, s.url)).status, 200);
    assert.deepEqual((await call('GET', '/reminders', GATEWAY, s.url)).json.data, []);
  } finally {
    await s.close();
  }
});
