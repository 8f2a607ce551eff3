// Optional limit/cursor paging of GET /api/v1/assistants: without them the answer is the spec's;
// with them, pages that neither repeat nor skip a row while other slots are being bought.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './helpers/harness.js';
import { purchase } from './helpers/api.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => h.close());

const list = (key: string, query = '') =>
  h.inject({ method: 'GET', url: `/api/v1/assistants${query}`, headers: { 'x-api-key': key } });

test('pages walk the list exactly once while purchases race in; no parameters → the spec’s shape', async () => {
  const key = await h.key();
  // Slots bought at once share timestamps: the id breaks the tie.
  await Promise.all(Array.from({ length: 11 }, () => purchase(h, key)));
  const whole = await list(key);
  assert.equal(whole.statusCode, 200);
  assert.deepEqual(Object.keys(whole.json()), ['data']);
  const all: string[] = whole.json().data.map((d: { id: string }) => d.id);
  assert.equal(all.length, 11);

  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await list(key, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.ok(body.data.length <= 3);
    seen.push(...body.data.map((d: { id: string }) => d.id));
    cursor = body.nextCursor;
    pages++;
    // New slots arrive between pages (some concurrently with the next read).
    await Promise.all([purchase(h, key), purchase(h, key)]);
  } while (cursor);
  assert.equal(pages, 4);
  assert.deepEqual(seen, all, 'every row once, in list order');

  // Without limit a cursor pages by 50; limit alone starts at the newest.
  const first = await list(key, '?limit=2');
  assert.equal(first.json().data.length, 2);
  assert.equal(typeof first.json().nextCursor, 'string');
  const rest = await list(key, `?cursor=${first.json().nextCursor}`);
  assert.equal(rest.json().data.length, 11 + 8 - 2);
  assert.equal(rest.json().nextCursor, null);
});

test('a cursor never shows another user’s rows; bad limits and cursors are 400 INVALID_REQUEST', async () => {
  const alice = await h.key();
  const bob = await h.key();
  await purchase(h, alice);
  await purchase(h, alice);
  await purchase(h, bob);
  const page = (await list(alice, '?limit=1')).json();
  const asBob = await list(bob, `?cursor=${page.nextCursor}`);
  assert.equal(asBob.statusCode, 200);
  assert.ok(asBob.json().data.every((d: { userId: string }) => d.userId !== page.data[0].userId));
  for (const q of ['?limit=0', '?limit=101', '?limit=abc', '?limit=1.5', '?cursor=', '?cursor=bm90LWpzb24']) {
    const res = await list(alice, q);
    assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
    assert.equal(res.json().error.code, 'INVALID_REQUEST');
  }
  const forged = Buffer.from(JSON.stringify({ createdAt: 1 })).toString('base64url');
  assert.equal((await list(alice, `?cursor=${forged}`)).statusCode, 400);
});

test('query strings are text, so limit=2 is the number 2; a JSON body is never coerced', async () => {
  const key = await h.key();
  const { deploymentId } = await purchase(h, key);
  assert.equal((await list(key, '?limit=2')).statusCode, 200);
  const cap = (monthlySpendCapUsd: unknown) =>
    h.inject({
      method: 'PUT',
      url: `/api/v1/assistants/${deploymentId}/limits`,
      headers: { 'x-api-key': key },
      payload: { monthlySpendCapUsd },
    });
  const text = await cap('5');
  assert.equal(text.statusCode, 400, text.body);
  assert.equal(text.json().error.code, 'INVALID_REQUEST');
  const number = await cap(5);
  assert.equal(number.statusCode, 200, number.body);
});
