// An assistant's channels (DESIGN §9.1): Telegram listed read-only, WhatsApp attached with
// write-only credentials sealed at rest, one number on one assistant (409 CHANNEL_IN_USE named to
// its owner only, two concurrent PUTs with one winner), other tenants' assistants 404, any status.
// Real store (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL), real routes.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { activeDeployment, assertError, deleteAssistant, purchase, stopAssistant } from './helpers/api.js';

let h: Harness;
let key: string;
const A = '/api/v1/assistants';
before(async () => ({ h, key } = await startHarnessWithKey()));
after(async () => h.close());

let numbers = 0;
const phoneNumberId = () => `10${Date.now() % 1_000_000_000}${numbers++}`;
const credentials = (phone = phoneNumberId()) => ({
  phoneNumberId: phone,
  accessToken: `EAAG${randomBytes(40).toString('base64url')}`,
  appSecret: randomBytes(16).toString('hex'),
});
const putWhatsApp = (id: string, body: unknown, k = key) =>
  h.inject({ method: 'PUT', url: `${A}/${id}/channels/whatsapp`, headers: { 'x-api-key': k }, payload: body as never });
const list = (id: string, k = key) =>
  h.inject({ method: 'GET', url: `${A}/${id}/channels`, headers: { 'x-api-key': k } });
const remove = (id: string, k = key) =>
  h.inject({ method: 'DELETE', url: `${A}/${id}/channels/whatsapp`, headers: { 'x-api-key': k } });
const channelRows = () => h.runtime.store.db.selectFrom('assistant_channels').selectAll().orderBy('id').execute();

describe('channels of an assistant', () => {
  let id: string;
  before(async () => {
    id = await activeDeployment(h, key);
  });

  test('an active assistant lists its Telegram bot, connected, with nothing to edit', async () => {
    const res = await list(id);
    assert.equal(res.statusCode, 200, res.body);
    const [telegram, ...rest] = res.json().data;
    assert.deepEqual(rest, []);
    assert.equal(telegram.type, 'telegram');
    assert.equal(telegram.status, 'connected');
    assert.deepEqual(telegram.details, {});
    const put = await h.inject({
      method: 'PUT',
      url: `${A}/${id}/channels/telegram`,
      headers: { 'x-api-key': key },
      payload: credentials(),
    });
    assertError(put, 400, 'INVALID_REQUEST');
    assert.match(put.json().error.message, /read-only here/);
    const del = await h.inject({
      method: 'DELETE',
      url: `${A}/${id}/channels/telegram`,
      headers: { 'x-api-key': key },
    });
    assertError(del, 400, 'INVALID_REQUEST');
    const unknown = await h.inject({ method: 'GET', url: `${A}/${id}/channels/sms`, headers: { 'x-api-key': key } });
    assertError(unknown, 404, 'NOT_FOUND');
  });

  test('PUT whatsapp answers the webhook URL and verify token, never the secrets; sealed at rest', async () => {
    const body = credentials();
    const res = await putWhatsApp(id, body);
    assert.equal(res.statusCode, 200, res.body);
    const view = res.json().data;
    assert.equal(view.type, 'whatsapp');
    assert.equal(view.status, 'connecting');
    assert.equal(view.details.phoneNumberId, body.phoneNumberId);
    const [row] = (await channelRows()).filter((r) => r.deployment_id === id);
    assert.equal(view.details.webhookUrl, `http://berth.test/hooks/whatsapp/${row!.id}`);
    assert.match(view.details.verifyToken, /^[0-9a-f]{40}$/);
    assert.ok(!res.body.includes(body.accessToken) && !res.body.includes(body.appSecret));
    const listed = await list(id);
    assert.ok(!listed.body.includes(body.accessToken) && !listed.body.includes(body.appSecret));
    assert.deepEqual(
      listed.json().data.map((c: { type: string }) => c.type),
      ['telegram', 'whatsapp'],
    );
    const stored = JSON.stringify(row);
    assert.ok(!stored.includes(body.accessToken) && !stored.includes(body.appSecret), 'stored in the clear');
    assert.deepEqual(JSON.parse(h.runtime.secrets.open(row!.secrets_enc)), {
      accessToken: body.accessToken,
      appSecret: body.appSecret,
    });
    assert.ok(!h.logs.some((l) => l.includes(body.accessToken) || l.includes(body.appSecret)), 'a secret was logged');
  });

  test('a new PUT replaces the credentials and keeps the webhook URL and verify token', async () => {
    const before = (await list(id)).json().data[1];
    const res = await putWhatsApp(id, credentials(before.details.phoneNumberId));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.details.webhookUrl, before.details.webhookUrl);
    assert.equal(res.json().data.details.verifyToken, before.details.verifyToken);
    assert.equal((await channelRows()).filter((r) => r.deployment_id === id).length, 1);
  });

  test('bad credentials: 400 naming the field, nothing stored', async () => {
    const snap = await channelRows();
    for (const bad of [
      { ...credentials(), appSecret: 'not-a-secret' },
      { ...credentials(), phoneNumberId: '+1 555 0100' },
      { ...credentials(), accessToken: 'short' },
      { ...credentials(), extra: true },
      { phoneNumberId: phoneNumberId() },
    ]) {
      const res = await putWhatsApp(id, bad);
      assertError(res, 400, 'INVALID_REQUEST');
      assert.ok(!res.body.includes((bad as { accessToken?: string }).accessToken ?? '\u0000'), res.body);
    }
    assert.deepEqual(await channelRows(), snap);
  });

  test('one number on a second assistant: 409 CHANNEL_IN_USE, named to its owner only', async () => {
    const phone = (await list(id)).json().data[1].details.phoneNumberId;
    const mine = (await purchase(h, key)).deploymentId;
    const snap = await channelRows();
    const res = await putWhatsApp(mine, credentials(phone));
    assertError(res, 409, 'CHANNEL_IN_USE');
    assert.ok(res.json().error.message.includes(id), res.body);
    const other = await h.key();
    const theirs = (await purchase(h, other)).deploymentId;
    const foreign = await putWhatsApp(theirs, credentials(phone), other);
    assertError(foreign, 409, 'CHANNEL_IN_USE');
    assert.ok(!foreign.body.includes(id) && !foreign.body.includes('Helper'), foreign.body);
    assert.deepEqual(await channelRows(), snap);
  });

  test("another tenant's assistant: 404 for every verb, nothing changed", async () => {
    const other = await h.key();
    const snap = await channelRows();
    assertError(await list(id, other), 404, 'NOT_FOUND');
    assertError(await putWhatsApp(id, credentials(), other), 404, 'NOT_FOUND');
    assertError(await remove(id, other), 404, 'NOT_FOUND');
    assert.deepEqual(await channelRows(), snap);
  });

  test('a stopped assistant: its channels are disabled, and a PUT is still taken', async () => {
    await stopAssistant(h, key, id);
    await h.runtime.idle();
    const res = await putWhatsApp(id, credentials());
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'disabled');
    const all = (await list(id)).json().data;
    assert.deepEqual(
      all.map((c: { status: string }) => c.status),
      ['disabled', 'disabled'],
    );
  });

  test('DELETE removes the channel; a second DELETE is 404; the number is free again', async () => {
    const phone = (await list(id)).json().data[1].details.phoneNumberId;
    const res = await remove(id);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { data: { success: true } });
    assertError(await remove(id), 404, 'NOT_FOUND');
    const next = (await purchase(h, key)).deploymentId;
    assert.equal((await putWhatsApp(next, credentials(phone))).statusCode, 200);
  });

  test('deleting the assistant takes its channel along and frees its number', async () => {
    const doomed = (await purchase(h, key)).deploymentId;
    const body = credentials();
    assert.equal((await putWhatsApp(doomed, body)).statusCode, 200);
    await deleteAssistant(h, key, doomed);
    assert.equal((await channelRows()).filter((r) => r.deployment_id === doomed).length, 0);
    assertError(await putWhatsApp(doomed, credentials()), 404, 'NOT_FOUND');
    const next = (await purchase(h, key)).deploymentId;
    assert.equal((await putWhatsApp(next, credentials(body.phoneNumberId))).statusCode, 200);
  });

  test('two concurrent PUTs of one number on three assistants: exactly one wins', async () => {
    for (let round = 0; round < 3; round++) {
      const phone = phoneNumberId();
      const slots = await Promise.all([purchase(h, key), purchase(h, key), purchase(h, key)]);
      const answers = await Promise.all(slots.map((s) => putWhatsApp(s.deploymentId, credentials(phone))));
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 409, 409], answers.map((r) => r.body).join('\n'));
      for (const r of answers.filter((x) => x.statusCode === 409)) assertError(r, 409, 'CHANNEL_IN_USE');
      assert.equal((await channelRows()).filter((r) => r.account_id === phone).length, 1);
    }
  });

  test('PUT and DELETE of the channel racing a stop: each a clear answer, the end state one of them', async () => {
    for (let round = 0; round < 3; round++) {
      const racing = await activeDeployment(h, key);
      const body = credentials();
      const [put, stop] = await Promise.all([
        putWhatsApp(racing, body),
        h.inject({ method: 'POST', url: `${A}/${racing}/stop`, headers: { 'x-api-key': key } }),
      ]);
      assert.equal(put.statusCode, 200, put.body);
      assert.equal(stop.statusCode, 200, stop.body);
      const [del, redeploy] = await Promise.all([
        remove(racing),
        h.inject({ method: 'POST', url: `${A}/${racing}/redeploy`, headers: { 'x-api-key': key } }),
      ]);
      assert.equal(del.statusCode, 200, del.body);
      assert.ok([200, 409].includes(redeploy.statusCode), redeploy.body);
      await h.runtime.idle();
      const listed = (await list(racing)).json().data.map((c: { type: string }) => c.type);
      assert.deepEqual(listed, ['telegram']);
    }
  });

  test('a PUT racing the assistant’s delete: either 404 or a channel the delete removed', async () => {
    for (let round = 0; round < 3; round++) {
      const doomed = (await purchase(h, key)).deploymentId;
      const [put, del] = await Promise.all([
        putWhatsApp(doomed, credentials()),
        h.inject({ method: 'DELETE', url: `${A}/${doomed}`, headers: { 'x-api-key': key } }),
      ]);
      assert.equal(del.statusCode, 200, del.body);
      assert.ok([200, 404].includes(put.statusCode), put.body);
      assert.equal((await channelRows()).filter((r) => r.deployment_id === doomed).length, 0);
    }
  });
});
