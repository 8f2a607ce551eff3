// MAX_SLOTS_PER_USER at purchase: race-safe (concurrent purchases of one user never pass it, on
// SQLite and on PostgreSQL), per user, freed by deleting a slot, and a refusal changes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './helpers/harness.js';

const MAX = 3;
let h: Harness;
before(async () => {
  h = await startHarness({ MAX_SLOTS_PER_USER: String(MAX) });
});
after(async () => h.close());

const buy = (key: string) =>
  h.inject({
    method: 'POST',
    url: '/api/v1/assistants/purchase',
    headers: { 'x-api-key': key },
    payload: { apiMode: 'byok' },
  });

test('20 concurrent purchases by one user create exactly MAX_SLOTS_PER_USER slots', async () => {
  const key = await h.key();
  const results = await Promise.all(Array.from({ length: 20 }, () => buy(key)));
  const created = results.filter((r) => r.statusCode === 201);
  const refused = results.filter((r) => r.statusCode === 409);
  assert.equal(created.length, MAX, results.map((r) => r.statusCode).join(','));
  assert.equal(refused.length, 20 - MAX);
  for (const r of refused) {
    assert.equal(r.json().error.code, 'QUOTA_EXCEEDED');
    assert.match(r.json().error.message, /maximum of 3 assistant slots/);
  }
  const list = await h.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': key } });
  assert.equal(list.json().data.length, MAX);

  // Another user is not affected by the first one's slots.
  const other = await h.key();
  assert.equal((await buy(other)).statusCode, 201);

  // A refusal wrote nothing; deleting a slot frees one.
  const before = await h.snapshot();
  assert.equal((await buy(key)).statusCode, 409);
  assert.deepEqual(await h.snapshot(), before);
  const id = created[0]!.json().data.deploymentId;
  const del = await h.inject({ method: 'DELETE', url: `/api/v1/assistants/${id}`, headers: { 'x-api-key': key } });
  assert.equal(del.statusCode, 200, del.body);
  assert.equal((await buy(key)).statusCode, 201);
  assert.equal((await buy(key)).statusCode, 409);
});
