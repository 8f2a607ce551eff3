// Issue 28: a lone UTF-16 surrogate in a JSON body is refused with 400 INVALID_REQUEST and nothing
// changes, on SQLite and PostgreSQL alike (PostgreSQL would store U+FFFD in its place: the value
// read back would not be the one written). A surrogate pair (an emoji) is stored and read back as sent.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './helpers/harness.js';
import { assertError } from './helpers/api.js';
import { signUp, type Browser } from './helpers/accounts.js';

let h: Harness;
let b: Browser;
before(async () => {
  h = await startHarness();
  b = await signUp(h, 'unicode@example.com');
});
after(() => h?.close());

const send = (url: string, raw: string) =>
  h.inject({
    method: 'POST',
    url,
    headers: { ...b.headers({ write: true }), 'content-type': 'application/json' },
    payload: raw,
  });

test('a lone surrogate anywhere in the body (value, key, nested, high or low) → 400 and nothing changes', async () => {
  const before = await h.snapshot();
  for (const raw of [
    '{"name":"Acme \\ud800"}',
    '{"name":"\\udfff Acme"}',
    '{"name":"\\ude00\\ud83d"}',
    '{"name":"Acme","\\ud800":1}',
  ]) {
    const res = await send('/api/organizations', raw);
    assertError(res, 400, 'INVALID_REQUEST');
    assert.match(res.json().error.message, /surrogate/);
  }
  assertError(await send('/api/keys', '{"name":"laptop \\udbff"}'), 400, 'INVALID_REQUEST');
  assert.deepEqual(await h.snapshot(), before);
});

test('a surrogate pair, escaped or not, is stored and read back exactly', async () => {
  for (const [raw, name] of [
    ['{"name":"Smile \\ud83d\\ude00"}', 'Smile \u{1F600}'],
    [JSON.stringify({ name: 'Rocket \u{1F680}' }), 'Rocket \u{1F680}'],
  ] as const) {
    const res = await send('/api/organizations', raw);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().data.name, name);
  }
  const list = await h.inject({ method: 'GET', url: '/api/organizations', headers: b.headers() });
  assert.deepEqual(
    list.json().data.map((o: { name: string }) => o.name),
    ['Smile \u{1F600}', 'Rocket \u{1F680}'],
  );
});
