// GET /agents a page at a time, in name order (issue 30: the control plane parses one page, never
// a whole host's list of 100,000 agents).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { fakeModel } from './helpers/serve.js';
import { hostBed } from './helpers/host-bed.js';

const ADMIN = 'admin-token-for-list-pages-0123456789';
const bed = hostBed(ADMIN, 'berth-host-pages-');
const { provider } = bed;

const get = async (query: string) => {
  const res = await request(`${bed.url}/agents${query}`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return { status: res.statusCode, json: (await res.body.json()) as any };
};
const names = (json: any) => json.agents.map((a: any) => a.name);
const put = async (name: string) => {
  const res = await request(`${bed.url}/agents/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      gatewayToken: `gateway-${name}-0123456789`,
      model: fakeModel(provider.url),
    }),
  });
  assert.equal(res.statusCode, 200, await res.body.text());
};

test('pages come in name order: after (exclusive) and limit, next while more follow', async () => {
  // Put out of order: the host's own order is insertion order.
  for (const n of ['golf', 'alpha', 'echo', 'charlie', 'foxtrot', 'bravo', 'delta']) await put(n);
  const first = await get('?limit=3');
  assert.equal(first.status, 200);
  assert.deepEqual(names(first.json), ['alpha', 'bravo', 'charlie']);
  assert.equal(first.json.next, 'charlie');
  const second = await get(`?limit=3&after=${first.json.next}`);
  assert.deepEqual(names(second.json), ['delta', 'echo', 'foxtrot']);
  assert.equal(second.json.next, 'foxtrot');
  const last = await get(`?limit=3&after=${second.json.next}`);
  assert.deepEqual(names(last.json), ['golf']);
  assert.equal(last.json.next, undefined, 'the last page has no next');
  // Exactly a page's worth left: no next, not an empty page after it.
  assert.equal((await get('?limit=7')).json.next, undefined);
  // Without paging: every agent, as before, each with its health.
  const all = await get('');
  assert.deepEqual(names(all.json), ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf']);
  assert.equal(typeof all.json.agents[0].ready, 'boolean');
  assert.equal(all.json.next, undefined);
  // `after` need not be a name the host runs (one removed since the page before).
  assert.deepEqual(names((await get('?after=bz&limit=2')).json), ['charlie', 'delta']);
  assert.deepEqual(names((await get('?after=zulu')).json), []);
});

test('the order follows puts and removes', async () => {
  const res = await request(`${bed.url}/agents/bravo`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  assert.equal(res.statusCode, 200);
  await res.body.dump();
  assert.deepEqual(names((await get('?limit=3')).json), ['alpha', 'charlie', 'delta']);
  await put('able');
  assert.deepEqual(names((await get('?limit=3')).json), ['able', 'alpha', 'charlie']);
});

test('a bad limit or after is a 400 in the error envelope, and a page is never over 1,000', async () => {
  for (const q of [
    '?limit=0',
    '?limit=1001',
    '?limit=abc',
    '?limit=1.5',
    '?limit=-1',
    '?limit=',
    '?limit=1&limit=2',
    '?after=a&after=b',
  ]) {
    const res = await get(q);
    assert.equal(res.status, 400, q);
    assert.equal(res.json.error.code, 'INVALID_REQUEST', q);
    assert.match(res.json.error.message, /limit|after/, q);
  }
  assert.equal((await get(`?after=${'x'.repeat(201)}`)).status, 400);
  assert.equal((await get('?limit=1000')).status, 200);
  const unauthorized = await request(`${bed.url}/agents?limit=2`);
  assert.equal(unauthorized.statusCode, 401);
  await unauthorized.body.dump();
});
