// The FakeWhatsApp (packages/testkit) holds Meta's contract, so tests against it prove something:
// the verification handshake before any webhook, signed webhook bodies of the Cloud API's shape,
// POST /{phone-number-id}/messages with its token, the 24-hour window (131047), rate limits
// (130429, 131056), media behind the token, and Graph API error bodies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { FakeWhatsApp, listen, close, makePng, WINDOW_MS, type WhatsAppNumber } from '@berth/testkit';

let wa: FakeWhatsApp;
const clock = Date.parse('2026-12-06T08:00:00Z');
let receiver: Server;
let receiverUrl: string;
const received: Array<{ raw: string; signature: string | undefined }> = [];
let echo: (challenge: string) => string = (c) => c;
let number: WhatsAppNumber;
const alice = { waId: '16505551234', name: 'Alice' };

before(async () => {
  wa = await new FakeWhatsApp({ now: () => clock }).start();
  receiver = createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (req.method === 'GET') return res.end(echo(url.searchParams.get('hub.challenge') ?? ''));
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    received.push({ raw: Buffer.concat(chunks).toString(), signature: req.headers['x-hub-signature-256'] as string });
    res.end('{}');
  });
  receiverUrl = `${await listen(receiver)}/hook`;
  number = wa.addNumber();
});
after(async () => {
  await wa.stop();
  await close(receiver);
});

const send = (body: unknown, token: string | null = number.accessToken, phone = number.phoneNumberId) =>
  fetch(`${wa.url}/${phone}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
const text = (to: string, body: string) => ({ messaging_product: 'whatsapp', to, type: 'text', text: { body } });

function assertGraphError(r: { status: number; json: any }, status: number, code: number) {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(r.json.error.code, code);
  assert.equal(typeof r.json.error.message, 'string');
  assert.equal(typeof r.json.error.type, 'string');
  assert.match(r.json.error.fbtrace_id, /^[A-Za-z0-9]{10,}$/);
}

test('no webhook before the handshake; a URL that does not echo the challenge is refused', async () => {
  await assert.rejects(wa.userSends(number.phoneNumberId, alice, { text: 'hi' }), /subscribe\(\) first/);
  echo = () => 'something else';
  await assert.rejects(wa.subscribe(number.phoneNumberId, receiverUrl, 'token'), /couldn't be validated/);
  echo = (c) => c;
  await wa.subscribe(number.phoneNumberId, receiverUrl, 'token');
  assert.equal(wa.subscribed(number.phoneNumberId), receiverUrl);
});

test("a user's message arrives as the Cloud API's webhook body, signed with the app secret", async () => {
  const { id, status } = await wa.userSends(number.phoneNumberId, alice, { text: 'Hello' });
  assert.equal(status, 200);
  const { raw, signature } = received.at(-1)!;
  assert.equal(signature, `sha256=${createHmac('sha256', number.appSecret).update(raw).digest('hex')}`);
  const body = JSON.parse(raw);
  assert.equal(body.object, 'whatsapp_business_account');
  assert.equal(body.entry[0].id, number.wabaId);
  const change = body.entry[0].changes[0];
  assert.equal(change.field, 'messages');
  assert.equal(change.value.messaging_product, 'whatsapp');
  assert.equal(change.value.metadata.phone_number_id, number.phoneNumberId);
  assert.deepEqual(change.value.contacts, [{ profile: { name: 'Alice' }, wa_id: alice.waId }]);
  const m = change.value.messages[0];
  assert.equal(m.id, id);
  assert.match(m.id, /^wamid\.[A-Za-z0-9+/]+=*$/);
  assert.deepEqual([m.from, m.type, m.text.body], [alice.waId, 'text', 'Hello']);
  assert.equal(m.timestamp, String(Math.floor(clock / 1000)));
});

test('sending needs the number’s own token: none or another is a 401 with OAuthException', async () => {
  assertGraphError(await send(text(alice.waId, 'x'), null), 401, 2500);
  const other = wa.addNumber();
  assertGraphError(await send(text(alice.waId, 'x'), other.accessToken), 401, 190);
  assert.equal(wa.sent.length, 0);
});

test('a reply within 24 hours is sent with a wamid; later, or to someone who never wrote, 131047', async () => {
  const ok = await send(text(alice.waId, 'Hi Alice'));
  assert.equal(ok.status, 200);
  assert.match(ok.json.messages[0].id, /^wamid\./);
  assert.deepEqual(ok.json.contacts, [{ input: alice.waId, wa_id: alice.waId }]);
  assert.equal(wa.sent.at(-1)!.body.text.body, 'Hi Alice');
  const stranger = await send(text('447700900999', 'hello?'));
  assertGraphError(stranger, 400, 131047);
  assert.equal(stranger.json.error.error_subcode, 2494010);
  wa.lastWroteAt(number.phoneNumberId, alice.waId, clock - WINDOW_MS - 1000);
  assertGraphError(await send(text(alice.waId, 'late')), 400, 131047);
  // A template may open the conversation again.
  const template = await send({
    messaging_product: 'whatsapp',
    to: alice.waId,
    type: 'template',
    template: { name: 'hello_world' },
  });
  assert.equal(template.status, 200);
  wa.lastWroteAt(number.phoneNumberId, alice.waId, clock);
});

test('what the Cloud API refuses: over 4,096 characters, no messaging_product, an unknown type', async () => {
  assertGraphError(await send(text(alice.waId, 'x'.repeat(4097))), 400, 100);
  assertGraphError(await send({ to: alice.waId, type: 'text', text: { body: 'x' } }), 400, 100);
  assertGraphError(await send({ messaging_product: 'whatsapp', to: alice.waId, type: 'hologram' }), 400, 100);
  assert.equal((await send(text(alice.waId, 'x'.repeat(4096)))).status, 200);
});

test('rate limits on demand: 130429 and 131056 with their details, then sending works again', async () => {
  wa.rateLimitNext = 130429;
  assertGraphError(await send(text(alice.waId, 'a')), 400, 130429);
  wa.rateLimitNext = 131056;
  const pair = await send(text(alice.waId, 'b'));
  assertGraphError(pair, 400, 131056);
  assert.match(pair.json.error.error_data.details, /same phone number/);
  assert.equal((await send(text(alice.waId, 'c'))).status, 200);
});

test("Meta's outage: every Graph call is a transient 503 (code 2) until it is over; webhooks still go out", async () => {
  wa.unavailable = true;
  const down = await send(text(alice.waId, 'during'));
  assertGraphError(down, 503, 2);
  assert.equal(down.json.error.is_transient, true);
  const phone = await fetch(`${wa.url}/${number.phoneNumberId}`, {
    headers: { authorization: `Bearer ${number.accessToken}` },
  });
  assert.equal(phone.status, 503);
  await phone.body?.cancel();
  const webhook = await wa.userSends(number.phoneNumberId, alice, { text: 'is anyone there?' });
  assert.equal(webhook.status, 200);
  assert.ok(received.at(-1)!.raw.includes(webhook.id));
  wa.unavailable = false;
  assert.equal((await send(text(alice.waId, 'after'))).status, 200);
});

test('media: the id gives a URL, and the URL downloads only with the token', async () => {
  const png = makePng(4, 4);
  await wa.userSends(number.phoneNumberId, alice, { image: { bytes: png, mimeType: 'image/png', caption: 'look' } });
  const m = JSON.parse(received.at(-1)!.raw).entry[0].changes[0].value.messages[0];
  assert.equal(m.type, 'image');
  assert.equal(m.image.caption, 'look');
  const auth = { authorization: `Bearer ${number.accessToken}` };
  const info = (await (await fetch(`${wa.url}/${m.image.id}`, { headers: auth })).json()) as any;
  assert.deepEqual([info.mime_type, info.file_size, info.id], ['image/png', png.length, m.image.id]);
  assert.equal((await fetch(`${wa.url}/${m.image.id}`)).status, 401);
  assert.equal((await fetch(info.url)).status, 401);
  const bytes = Buffer.from(await (await fetch(info.url, { headers: auth })).arrayBuffer());
  assert.ok(bytes.equals(png));
  const unknown = await fetch(`${wa.url}/123456789`, { headers: auth });
  assert.equal(unknown.status, 400);
  assert.equal(((await unknown.json()) as any).error.code, 100);
});

test('mark as read, with the typing indicator', async () => {
  const { id } = await wa.userSends(number.phoneNumberId, alice, { text: 'are you there?' });
  const r = await send({
    messaging_product: 'whatsapp',
    status: 'read',
    message_id: id,
    typing_indicator: { type: 'text' },
  });
  assert.deepEqual(r.json, { success: true });
  assert.deepEqual(wa.reads.at(-1), { phoneNumberId: number.phoneNumberId, messageId: id, typing: true });
});

test('media out: an upload (multipart) gives an id this number can send; an unknown id is refused', async () => {
  wa.lastWroteAt(number.phoneNumberId, alice.waId, clock);
  const form = new FormData();
  form.set('messaging_product', 'whatsapp');
  form.set('type', 'image/png');
  form.set('file', new Blob([makePng()], { type: 'image/png' }), 'square.png');
  const up = await fetch(`${wa.url}/${number.phoneNumberId}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${number.accessToken}` },
    body: form,
  });
  assert.equal(up.status, 200);
  const { id } = (await up.json()) as { id: string };
  assert.match(id, /^[0-9]+$/);
  assert.deepEqual(wa.mediaBytes(id), makePng());
  const ok = await send({ messaging_product: 'whatsapp', to: alice.waId, type: 'image', image: { id } });
  assert.equal(ok.status, 200);
  const bad = await send({ messaging_product: 'whatsapp', to: alice.waId, type: 'image', image: { id: '1234567' } });
  assertGraphError(bad, 400, 100);
  const noFile = new FormData();
  noFile.set('messaging_product', 'whatsapp');
  const refused = await fetch(`${wa.url}/${number.phoneNumberId}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${number.accessToken}` },
    body: noFile,
  });
  assert.equal(refused.status, 400);
});
