// One bot token runs one assistant (DESIGN §7.1): 409 BOT_TOKEN_IN_USE on activate and update,
// the other deployment named only to its owner, and two concurrent activations with one token
// end with exactly one winner (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startHarnessWithKey, uniqueBotToken, type Harness } from './helpers/harness.js';
import { activationBody, assertError, pay, purchase } from './helpers/api.js';

let h: Harness;
let key: string;
const A = '/api/v1/assistants';
before(async () => ({ h, key } = await startHarnessWithKey()));
after(async () => h.close());

async function paidSlot(k = key) {
  const { deploymentId, checkoutUrl } = await purchase(h, k, 'byok');
  await pay(h, checkoutUrl);
  return deploymentId;
}
const activateWith = (id: string, token: string, name = 'Helper', k = key) =>
  h.inject({
    method: 'POST',
    url: `${A}/${id}/activate`,
    headers: { 'x-api-key': k },
    payload: activationBody('byok', { messengerBotToken: token, name }),
  });
const patch = (id: string, body: unknown, k = key) =>
  h.inject({ method: 'PATCH', url: `${A}/${id}`, headers: { 'x-api-key': k }, payload: body as never });

describe('one bot token, one assistant', () => {
  const token = uniqueBotToken();
  let first: string;
  before(async () => {
    first = await paidSlot();
    assert.equal((await activateWith(first, token, 'Weather bot')).statusCode, 200);
    await h.runtime.idle();
  });

  test('activating a second assistant of the same owner: 409 naming the first, nothing changed', async () => {
    const second = await paidSlot();
    const snap = await h.snapshot();
    const res = await activateWith(second, token);
    assertError(res, 409, 'BOT_TOKEN_IN_USE');
    assert.match(res.json().error.message, /"Weather bot"/);
    assert.ok(res.json().error.message.includes(first));
    assert.ok(!res.body.includes(token), 'the token is echoed');
    assert.deepEqual(await h.snapshot(), snap);
  });

  test('another tenant: 409 that names neither the deployment nor its id', async () => {
    const other = await h.key();
    const slot = await paidSlot(other);
    const res = await activateWith(slot, token, 'Mine', other);
    assertError(res, 409, 'BOT_TOKEN_IN_USE');
    assert.ok(!res.body.includes('Weather bot'));
    assert.ok(!res.body.includes(first));
  });

  test('update to a token another deployment holds: 409; the own token again is fine', async () => {
    const second = await paidSlot();
    assert.equal((await activateWith(second, uniqueBotToken())).statusCode, 200);
    await h.runtime.idle();
    await h.inject({ method: 'POST', url: `${A}/${second}/stop`, headers: { 'x-api-key': key } });
    const snap = await h.snapshot();
    assertError(await patch(second, { messengerBotToken: token }), 409, 'BOT_TOKEN_IN_USE');
    assert.deepEqual(await h.snapshot(), snap);
    await h.inject({ method: 'POST', url: `${A}/${first}/stop`, headers: { 'x-api-key': key } });
    const same = await patch(first, { messengerBotToken: token });
    assert.equal(same.statusCode, 200, same.body);
  });

  test('the token is free again once its deployment is deleted', async () => {
    const del = await h.inject({ method: 'DELETE', url: `${A}/${first}`, headers: { 'x-api-key': key } });
    assert.equal(del.statusCode, 200, del.body);
    const next = await paidSlot();
    assert.equal((await activateWith(next, token)).statusCode, 200);
  });

  test('two concurrent activations with one token: exactly one wins', async () => {
    for (let round = 0; round < 3; round++) {
      const shared = uniqueBotToken();
      const slots = await Promise.all([paidSlot(), paidSlot(), paidSlot()]);
      const answers = await Promise.all(slots.map((id) => activateWith(id, shared)));
      const codes = answers.map((r) => r.statusCode).sort();
      assert.deepEqual(codes, [200, 409, 409], answers.map((r) => r.body).join('\n'));
      for (const r of answers.filter((x) => x.statusCode === 409)) assertError(r, 409, 'BOT_TOKEN_IN_USE');
      const holders = await h.runtime.store.db
        .selectFrom('deployments')
        .select('id')
        .where('bot_token_hash', '=', h.runtime.secrets.hash(shared))
        .execute();
      assert.equal(holders.length, 1);
    }
  });

  test('at rest: a keyed hash beside the sealed token, not a plain digest of it', async () => {
    const t = uniqueBotToken();
    const slot = await paidSlot();
    assert.equal((await activateWith(slot, t)).statusCode, 200);
    const row = await h.runtime.store.db
      .selectFrom('deployments')
      .select(['bot_token_enc', 'bot_token_hash'])
      .where('id', '=', slot)
      .executeTakeFirstOrThrow();
    assert.match(row.bot_token_hash!, /^[0-9a-f]{64}$/);
    assert.notEqual(row.bot_token_hash, createHash('sha256').update(t).digest('hex'));
    assert.ok(!JSON.stringify(row).includes(t.split(':')[1]!));
  });
});
