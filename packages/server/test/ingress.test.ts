// Webhook ingress (DESIGN §9.1) with the FakeWhatsApp speaking Meta's side: the verification
// handshake, signed updates stored before the 200 and handed to the worker once, repeats answered
// once, and every bad input a clear 4xx that stores nothing; Telegram's secret_token alike. Real
// store (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL), real HTTP into the control plane,
// the fake workers backend (what a worker took is recorded).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { FakeWhatsApp, metaSignature, type WhatsAppNumber } from '@berth/testkit';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { activeDeployment, deleteAssistant, stopAssistant } from './helpers/api.js';
import { telegramWebhookSecret } from '../src/ingress/signatures.js';

let h: Harness;
let key: string;
let wa: FakeWhatsApp;
let base: string;
const A = '/api/v1/assistants';
const alice = { waId: '16505551234', name: 'Alice' };

before(async () => {
  ({ h, key } = await startHarnessWithKey());
  wa = await new FakeWhatsApp().start();
  await h.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(h.runtime.app.server.address() as AddressInfo).port}`;
});
after(async () => {
  await h.close();
  await wa.stop();
});

const updateRows = () => h.runtime.store.db.selectFrom('channel_updates').selectAll().orderBy('id').execute();

/** The next update a worker takes (an event, not a poll). */
function nextTaken(match: (body: any) => boolean = () => true) {
  return new Promise<{ workerName: string; body: any }>((resolve) => {
    const prev = h.workers.onUpdate;
    h.workers.onUpdate = (u) => {
      prev?.(u);
      if (match(u.body)) resolve(u);
    };
  });
}

/** An active assistant with a WhatsApp number attached and Meta's webhook verified. */
async function withWhatsApp(): Promise<{ id: string; number: WhatsAppNumber; url: string; verifyToken: string }> {
  const id = await activeDeployment(h, key);
  const number = wa.addNumber();
  const res = await h.inject({
    method: 'PUT',
    url: `${A}/${id}/channels/whatsapp`,
    headers: { 'x-api-key': key },
    payload: { phoneNumberId: number.phoneNumberId, accessToken: number.accessToken, appSecret: number.appSecret },
  });
  assert.equal(res.statusCode, 200, res.body);
  const { webhookUrl, verifyToken } = res.json().data.details;
  const url = webhookUrl.replace('http://berth.test', base);
  await wa.subscribe(number.phoneNumberId, url, verifyToken);
  return { id, number, url, verifyToken };
}

describe('WhatsApp webhooks', () => {
  let ch: Awaited<ReturnType<typeof withWhatsApp>>;
  before(async () => {
    ch = await withWhatsApp();
  });

  test("Meta's handshake: the challenge echoed for the right token, 403 for another; the channel is connected", async () => {
    const q = (token: string) => `${ch.url}?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${token}`;
    const wrong = await fetch(q('not-the-token'));
    assert.equal(wrong.status, 403);
    assert.equal(((await wrong.json()) as any).error.code, 'FORBIDDEN');
    const right = await fetch(q(ch.verifyToken));
    assert.equal(right.status, 200);
    assert.equal(await right.text(), '1158201444');
    const noMode = await fetch(`${ch.url}?hub.verify_token=${ch.verifyToken}`);
    assert.equal(noMode.status, 400);
    const listed = await h.inject({ method: 'GET', url: `${A}/${ch.id}/channels`, headers: { 'x-api-key': key } });
    assert.equal(listed.json().data[1].status, 'connected');
    assert.equal(listed.json().data[1].statusMessage, null);
  });

  test('a signed message is stored, answered 200, handed to the worker once and marked delivered', async () => {
    const taken = nextTaken((b) => b.channel === 'whatsapp');
    const sent = await wa.userSends(ch.number.phoneNumberId, alice, { text: 'Hello there' });
    assert.equal(sent.status, 200, sent.body);
    assert.deepEqual(JSON.parse(sent.body), { data: { accepted: 1, repeated: 0 } });
    const u = await taken;
    assert.equal(u.body.updateKey, sent.id);
    const value = u.body.update.entry[0].changes[0].value;
    assert.equal(value.messages[0].text.body, 'Hello there');
    assert.equal(value.contacts[0].profile.name, 'Alice');
    assert.equal(value.metadata.phone_number_id, ch.number.phoneNumberId);
    await h.runtime.idle();
    const row = (await updateRows()).find((r) => r.update_key === sent.id)!;
    assert.ok(row.delivered_at, 'not marked delivered');
  });

  test("Meta's retry of the same message: 200, not stored or handed over again", async () => {
    const { id, payload } = wa.messagePayload(ch.number.phoneNumberId, alice, { text: 'once' });
    const first = await wa.deliver(ch.number.phoneNumberId, payload);
    assert.equal(first.status, 200, first.body);
    await h.runtime.idle();
    const before = h.workers.updates.length;
    const again = await wa.deliver(ch.number.phoneNumberId, payload);
    assert.equal(again.status, 200, again.body);
    assert.deepEqual(JSON.parse(again.body), { data: { accepted: 0, repeated: 1 } });
    await h.runtime.idle();
    assert.equal(h.workers.updates.length, before);
    assert.equal((await updateRows()).filter((r) => r.update_key === id).length, 1);
  });

  test('a batch of two messages: two updates, each with only its own message', async () => {
    const one = wa.messagePayload(ch.number.phoneNumberId, alice, { text: 'first' });
    const two = wa.messagePayload(ch.number.phoneNumberId, { waId: '447700900123', name: 'Bob' }, { text: 'second' });
    const value = one.payload.entry[0]!.changes[0]!.value as any;
    const batch = structuredClone(one.payload);
    (batch.entry[0]!.changes[0]!.value as any).messages = [
      value.messages[0],
      (two.payload.entry[0]!.changes[0]!.value as any).messages[0],
    ];
    const res = await wa.deliver(ch.number.phoneNumberId, batch);
    assert.deepEqual(JSON.parse(res.body), { data: { accepted: 2, repeated: 0 } });
    // Meta's retry of one of them alone is a repeat.
    const retry = await wa.deliver(ch.number.phoneNumberId, two.payload);
    assert.deepEqual(JSON.parse(retry.body), { data: { accepted: 0, repeated: 1 } });
    await h.runtime.idle();
    const bodies = h.workers.updates.filter((u) => [one.id, two.id].includes(u.body.updateKey));
    assert.equal(bodies.length, 2);
    for (const b of bodies) assert.equal(b.body.update.entry[0].changes[0].value.messages.length, 1);
  });

  test('a missing, forged or stale signature: 401, nothing stored', async () => {
    const snap = await updateRows();
    const { payload } = wa.messagePayload(ch.number.phoneNumberId, alice, { text: 'forged' });
    const raw = JSON.stringify(payload);
    for (const signature of [
      null,
      'sha256=',
      metaSignature('0'.repeat(32), raw),
      metaSignature(ch.number.appSecret, `${raw} `),
      metaSignature(ch.number.appSecret, raw).replace('sha256=', 'sha1='),
    ]) {
      const res = await wa.deliver(ch.number.phoneNumberId, payload, { signature });
      assert.equal(res.status, 401, `${signature}: ${res.body}`);
      assert.equal(JSON.parse(res.body).error.code, 'UNAUTHORIZED');
    }
    assert.deepEqual(await updateRows(), snap);
  });

  test('signed but not a WhatsApp update (not JSON, truncated, wrong object): 400, nothing stored', async () => {
    const snap = await updateRows();
    const { payload } = wa.messagePayload(ch.number.phoneNumberId, alice, { text: 'cut' });
    const full = JSON.stringify(payload);
    for (const raw of ['not json', full.slice(0, full.length - 7), '', JSON.stringify({ object: 'page', entry: [] })]) {
      const res = await wa.deliver(ch.number.phoneNumberId, undefined, { raw });
      assert.equal(res.status, 400, `${raw.slice(0, 30)}: ${res.body}`);
      assert.equal(JSON.parse(res.body).error.code, 'INVALID_REQUEST');
    }
    assert.deepEqual(await updateRows(), snap);
  });

  test('a body of another content type, or none: a clear 4xx, never a 500', async () => {
    const { payload } = wa.messagePayload(ch.number.phoneNumberId, alice, { text: 'typed' });
    const raw = JSON.stringify(payload);
    const path = new URL(ch.url).pathname;
    for (const headers of [
      {},
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'text/plain' },
    ]) {
      const res = await h.inject({ method: 'POST', url: path, headers, payload: raw });
      assert.ok(
        res.statusCode >= 400 && res.statusCode < 500,
        `${JSON.stringify(headers)}: ${res.statusCode} ${res.body}`,
      );
      assert.equal(typeof res.json().error.code, 'string');
    }
    // Signed, it is taken whatever the content type says: the signature covers the bytes.
    const signed = await h.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'text/plain', 'x-hub-signature-256': metaSignature(ch.number.appSecret, raw) },
      payload: raw,
    });
    assert.equal(signed.statusCode, 200, signed.body);
    await h.runtime.idle();
  });

  test('an oversized body: 413 before anything is read into the store', async () => {
    const snap = await updateRows();
    const res = await fetch(ch.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"object":"whatsapp_business_account","entry":[],"pad":"${'x'.repeat(1_100_000)}"}`,
    });
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as any).error.code, 'PAYLOAD_TOO_LARGE');
    assert.deepEqual(await updateRows(), snap);
  });

  test('an unknown channel id, or not an id at all: 404', async () => {
    for (const path of ['/hooks/whatsapp/3b241101-e2bb-4255-8caf-4136c566a962', '/hooks/whatsapp/nope']) {
      const res = await fetch(`${base}${path}`, { method: 'POST', body: '{}' });
      assert.equal(res.status, 404, path);
      assert.equal(((await res.json()) as any).error.code, 'NOT_FOUND');
      const get = await fetch(`${base}${path}?hub.mode=subscribe&hub.challenge=1&hub.verify_token=x`);
      assert.equal(get.status, 404);
    }
  });

  test('a worker that cannot take the update yet gets it again until it does, once', async () => {
    h.workers.updateStatus = 503;
    const sent = await wa.userSends(ch.number.phoneNumberId, alice, { text: 'patience' });
    assert.equal(sent.status, 200, sent.body);
    const refused = await h.runtime.store.db
      .selectFrom('jobs')
      .select(['attempts', 'last_error'])
      .where('kind', '=', 'channel_update')
      .where('status', '=', 'pending')
      .executeTakeFirst();
    assert.ok(refused, 'the job is gone while the worker refuses');
    const taken = nextTaken((b) => b.updateKey === sent.id);
    h.workers.updateStatus = undefined;
    await taken;
    await h.runtime.idle();
    assert.equal(h.workers.updates.filter((u) => u.body.updateKey === sent.id).length, 1);
  });

  test('a stopped assistant: 409 that stores nothing; a deleted one: 404', async () => {
    const other = await withWhatsApp();
    await stopAssistant(h, key, other.id);
    await h.runtime.idle();
    const snap = await updateRows();
    const res = await wa.userSends(other.number.phoneNumberId, alice, { text: 'anyone?' });
    assert.equal(res.status, 409, res.body);
    assert.equal(JSON.parse(res.body).error.code, 'ASSISTANT_NOT_READY');
    assert.match(JSON.parse(res.body).error.message, /stopped/);
    assert.deepEqual(await updateRows(), snap);
    await deleteAssistant(h, key, other.id);
    const gone = await wa.userSends(other.number.phoneNumberId, alice, { text: 'hello?' });
    assert.equal(gone.status, 404, gone.body);
  });
});

describe('Telegram webhooks', () => {
  let id: string;
  let url: string;
  let secret: string;
  before(async () => {
    id = await activeDeployment(h, key);
    url = `${base}/hooks/telegram/${id}`;
    secret = telegramWebhookSecret(h.runtime.secrets, id);
  });
  const post = (body: string, token: string | null = secret) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === null ? {} : { 'x-telegram-bot-api-secret-token': token }),
      },
      body,
    });
  const update = (updateId: number, text: string) =>
    JSON.stringify({
      update_id: updateId,
      message: {
        message_id: 7,
        date: 1765000000,
        chat: { id: 42, type: 'private' },
        from: { id: 42, first_name: 'T' },
        text,
      },
    });

  test('an update with the secret token is handed to the worker once, a repeat answered once', async () => {
    const taken = nextTaken((b) => b.channel === 'telegram');
    const res = await post(update(900001, 'hi'));
    assert.equal(res.status, 200);
    const u = await taken;
    assert.equal(u.body.update.message.text, 'hi');
    assert.equal(u.body.channelId, id);
    const again = await post(update(900001, 'hi'));
    assert.deepEqual(await again.json(), { data: { accepted: 0, repeated: 1 } });
    await h.runtime.idle();
    assert.equal(h.workers.updates.filter((x) => x.body.updateKey === '900001').length, 1);
  });

  test('a missing or wrong secret token: 401; no update_id: 400; nothing stored', async () => {
    const snap = await updateRows();
    for (const token of [null, '', secret.slice(1), telegramWebhookSecret(h.runtime.secrets, crypto.randomUUID())]) {
      const res = await post(update(900002, 'x'), token);
      assert.equal(res.status, 401, String(token));
    }
    assert.equal((await post('{"message":{}}')).status, 400);
    assert.equal((await post('{"update_id":')).status, 400);
    assert.deepEqual(await updateRows(), snap);
  });
});

test("accepted updates are kept for the platforms' retry window, then housekeeping drops them", async () => {
  await h.runtime.idle();
  const kept = (await updateRows()).length;
  assert.ok(kept > 0);
  assert.equal((await h.runtime.reconciler.housekeeping(Date.now())).channelUpdates, 0);
  const later = await h.runtime.reconciler.housekeeping(Date.now() + 9 * 24 * 3600_000);
  assert.equal(later.channelUpdates, kept);
  assert.deepEqual(await updateRows(), []);
});
