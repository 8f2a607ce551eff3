// WhatsApp end to end (DESIGN §9.1): the real control plane with its local agent host, Meta's side
// played by FakeWhatsApp (signed webhooks into the ingress, the Graph API the agent answers
// through), real HTTP throughout (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL). A channel
// PUT on an active assistant answers within 5 s without restarting its Telegram bot; text, a
// photo, a voice note and a document are answered and formatted; the same person on Telegram is
// another end user; a +49 number refused in German (the owner's settings.language first); kill -9
// of the agent host between the webhook's 200 and the reply: one reply;
// a revoked token: the channel failed with a sentence; DELETE: the number silent.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeWhatsApp, makeOggOpus, makePng, type WhatsAppNumber } from '@berth/testkit';
import { defaultSettings } from '@berth/contracts/settings';
import { activeBot, attachWhatsApp, channelFailed, channelView, type E2E, startE2E } from './helpers/e2e.js';
import { until } from './helpers/until.js';
import type { LocalAgentHost } from '../src/workers/local-agent-host.js';

const BOT = '7400000061:AAwhatsappEndToEndBesideTelegram_abcd';
const alice = { waId: '16505551234', name: 'Alice' };
const bob = { waId: '447700900123', name: 'Bob' };

let e: E2E;
let wa: FakeWhatsApp;
let id: string;
let number: WhatsAppNumber;

before(async () => {
  wa = await new FakeWhatsApp().start();
  e = await startE2E({ WHATSAPP_API_ROOT: wa.url }, {}, { media: true });
  // The router of the media catalog: it transcribes voice notes.
  id = await activeBot(e, BOT, { modelProvider: 'openrouter', modelId: 'router/fake-model' });
});
after(async () => {
  await e?.close();
  await wa?.stop();
});

const whatsappView = () => channelView(e, id, 'whatsapp');
const textTo = (to: string, pred: (body: string) => boolean, ms = 15_000) =>
  wa.waitForSent((m) => m.to === to && m.type === 'text' && pred(m.body.text.body), ms);

const attach = (n: WhatsAppNumber) => attachWhatsApp(e, wa, id, n);

describe('WhatsApp through the control plane and its agent host', () => {
  test('a number added to an active assistant answers within 5 s; its Telegram bot is not restarted', async () => {
    e.tg.userSends(BOT, 7001, { text: 'before' });
    await e.tg.waitForSent((m) => m.chat_id === 7001 && m.text === 'You said: before');
    const getMes = e.tg.getMes.get(BOT) ?? 0;
    number = wa.addNumber();
    const started = Date.now();
    await attach(number);
    e.provider.queue.push({ content: 'Hi **Alice**, see `code`.' });
    const sent = await wa.userSends(number.phoneNumberId, alice, { text: 'Hello' });
    assert.equal(sent.status, 200, sent.body);
    const answer = await textTo(alice.waId, () => true, 5_000);
    assert.ok(Date.now() - started < 5_000, `answered ${Date.now() - started} ms after the PUT`);
    assert.match(answer.body.text.body, /^Hi \*Alice\*, see /);
    assert.ok(
      wa.reads.some((r) => r.messageId === sent.id && r.typing),
      'read, with the typing indicator',
    );
    assert.equal(e.tg.getMes.get(BOT) ?? 0, getMes, 'the Telegram bot did not start again');
    e.tg.userSends(BOT, 7001, { text: 'still there' });
    await e.tg.waitForSent((m) => m.chat_id === 7001 && m.text === 'You said: still there');
  });

  test('a photo, a voice note and a document are answered', async () => {
    e.provider.transcribe = () => 'what is the weather';
    await wa.userSends(number.phoneNumberId, bob, { voice: { bytes: makeOggOpus(1) } });
    await textTo(bob.waId, (b) => b === 'You said: what is the weather');
    await wa.userSends(number.phoneNumberId, bob, {
      document: {
        bytes: Buffer.from('Agenda\n1. budget\n2. hiring\n'),
        mimeType: 'text/plain',
        filename: 'agenda.txt',
      },
    });
    const doc = await textTo(bob.waId, (b) => b.includes('[document agenda.txt]'));
    assert.match(doc.body.text.body, /budget/);
    // The fake model has no vision in this catalog: the user is told so in a sentence, no model call.
    const calls = e.provider.requests.length;
    await wa.userSends(number.phoneNumberId, bob, { image: { bytes: makePng(), mimeType: 'image/png' } });
    await textTo(bob.waId, (b) => b.startsWith('I cannot look at pictures'));
    assert.equal(e.provider.requests.length, calls);
  });

  test('the same person on Telegram is another end user: the WhatsApp conversation is not in the Telegram turn', async () => {
    await wa.userSends(number.phoneNumberId, alice, { text: 'the password is heliotrope' });
    await textTo(alice.waId, (b) => b.includes('heliotrope'));
    e.tg.userSends(BOT, 16505551234, { text: 'what is the password?', from: { id: 16505551234, first_name: 'A' } });
    await e.tg.waitForSent((m) => m.chat_id === 16505551234 && m.text === 'You said: what is the password?');
    assert.ok(!JSON.stringify(e.provider.requests.at(-1)!.body.messages).includes('heliotrope'));
  });

  test("a +49 number is refused in German without a model call; the owner's settings.language overrides it", async () => {
    const hans = { waId: '4915112345678', name: 'Hans' };
    const calls = e.provider.requests.length;
    /** Hans sends `inbound`; the sentence he gets back after it matches `answer`. */
    const ask = async (inbound: Parameters<typeof wa.userSends>[2], answer: RegExp) => {
      const from = wa.sent.length;
      await wa.userSends(number.phoneNumberId, hans, inbound);
      await wa.waitForSent(
        (m) => wa.sent.indexOf(m) >= from && m.to === hans.waId && m.type === 'text' && answer.test(m.body.text.body),
      );
    };
    // No vision in this catalog: a photo is refused in a sentence.
    await ask(
      { image: { bytes: makePng(), mimeType: 'image/png' } },
      /^Mit diesem Modell kann ich keine Bilder ansehen/,
    );
    await ask(
      { document: { bytes: Buffer.from('PK\u0003\u0004'), mimeType: 'application/zip', filename: 'fotos.zip' } },
      /^Ich kann PDF-, Text-, Markdown-, CSV- und JSON-Dokumente lesen/,
    );
    const only = await e.api('PUT', `/api/v1/assistants/${id}/settings`, {
      ...defaultSettings(),
      access: { ...defaultSettings().access, mode: 'allowlist', whatsappNumbers: [alice.waId] },
    });
    assert.equal(only.status, 200, only.text);
    await ask({ text: 'Hallo?' }, /^Entschuldige, dieser Assistent spricht nur mit Menschen/);
    const french = await e.api('PUT', `/api/v1/assistants/${id}/settings`, { ...defaultSettings(), language: 'fr' });
    assert.equal(french.status, 200, french.text);
    await ask(
      { image: { bytes: makePng(), mimeType: 'image/png' } },
      /^Avec ce modèle, je ne peux pas regarder les images/,
    );
    assert.equal(e.provider.requests.length, calls, 'no refusal costs a model call');
    await e.api('PUT', `/api/v1/assistants/${id}/settings`, defaultSettings());
  });

  test('voice note in, a drawn picture and a spoken answer out (voice replies when spoken to)', async () => {
    const put = await e.api('PUT', `/api/v1/assistants/${id}/settings`, {
      ...defaultSettings(),
      voiceReplies: 'when-spoken-to',
    });
    assert.equal(put.status, 200, put.text);
    e.provider.transcribe = () => 'draw me a red square';
    e.provider.queue.push(
      { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a red square' } }] },
      { content: 'Here is **your** picture.' },
    );
    await wa.userSends(number.phoneNumberId, bob, { voice: { bytes: makeOggOpus(1) } });
    await textTo(bob.waId, (b) => b === 'Here is *your* picture.');
    const image = await wa.waitForSent((m) => m.to === bob.waId && m.type === 'image');
    assert.equal(wa.mediaBytes(image.body.image.id)!.subarray(1, 4).toString(), 'PNG');
    const voice = await wa.waitForSent((m) => m.to === bob.waId && m.type === 'audio');
    const upload = wa.uploads.find((u) => u.id === voice.body.audio.id)!;
    assert.equal(upload.mimeType, 'audio/ogg');
    assert.equal(upload.bytes.subarray(0, 4).toString(), 'OggS');
    assert.equal(e.provider.speeches.at(-1)!.body.input, 'Here is your picture.');
    // A written message gets words only.
    const spoken = wa.sent.filter((m) => m.type === 'audio').length;
    await wa.userSends(number.phoneNumberId, bob, { text: 'thanks' });
    await textTo(bob.waId, (b) => b === 'You said: thanks');
    assert.equal(wa.sent.filter((m) => m.type === 'audio').length, spoken);
    await e.api('PUT', `/api/v1/assistants/${id}/settings`, defaultSettings());
  });

  test('kill -9 of the agent host between the 200 and the reply: the reply arrives exactly once', async () => {
    const host = e.runtime.services.workers as LocalAgentHost;
    const firstPid = host.pid!;
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    e.provider.queue.push({ content: 'Survived the crash.', until: held });
    const asked = e.provider.requests.length;
    const sent = await wa.userSends(number.phoneNumberId, alice, { text: 'are you still there?' });
    assert.equal(sent.status, 200);
    // The agent took it and its turn is running (the model was asked): now the host dies.
    await until('the turn to reach the model', () => e.provider.requests.length > asked || undefined);
    process.kill(firstPid, 'SIGKILL');
    release();
    await until('a new agent host', () => (host.pid && host.pid !== firstPid) || undefined, 20_000);
    e.provider.queue.push({ content: 'Survived the crash.' });
    const answer = await textTo(alice.waId, (b) => b === 'Survived the crash.', 30_000);
    assert.ok(answer);
    // Time for a second copy to show, were there one: the next message's answer comes after it.
    await wa.userSends(number.phoneNumberId, alice, { text: 'after' });
    await textTo(alice.waId, (b) => b === 'You said: after', 15_000);
    assert.equal(wa.sent.filter((m) => m.body.text?.body === 'Survived the crash.').length, 1, 'answered once');
  });

  test('credentials Meta refuses at the PUT: the channel failed, never sent to the worker; the assistant stays active', async () => {
    const other = wa.addNumber();
    const res = await e.api('PUT', `/api/v1/assistants/${id}/channels/whatsapp`, {
      phoneNumberId: other.phoneNumberId,
      accessToken: 'EAAGnot-this-numbers-token-0123456789',
      appSecret: other.appSecret,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data.status, 'failed');
    const d = await e.runtime.services.deployments.findById(id);
    const health = await e.runtime.services.workers.assistantCall(d!.workerName, 'GET', '/health');
    assert.equal(health.status, 200, 'the worker stays ready');
    assert.ok(!(health.json as any).channels?.length, 'no WhatsApp channel on the worker');
    assert.equal((await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data.status, 'active');
    e.tg.userSends(BOT, 7001, { text: 'unaffected' });
    await e.tg.waitForSent((m) => m.chat_id === 7001 && m.text === 'You said: unaffected');
    // The owner fixes it: the number answers again.
    await attach(number);
    await wa.userSends(number.phoneNumberId, alice, { text: 'fixed?' });
    await textTo(alice.waId, (b) => b === 'You said: fixed?');
  });

  test('a revoked token: the channel is failed with a sentence saying what to fix', async () => {
    wa.revokeToken(number.phoneNumberId);
    await wa.userSends(number.phoneNumberId, alice, { text: 'hello again' });
    const view = await channelFailed(e, id, 'whatsapp');
    assert.match(
      view.statusMessage,
      /Meta refused the access token .*PUT \/api\/v1\/assistants\/\{id\}\/channels\/whatsapp/,
    );
    assert.ok(!JSON.stringify(view).includes(number.accessToken));
  });

  test('a token revoked while it runs leaves the assistant active: Telegram answers, and a redeploy comes back active', async () => {
    // The channel failed in the test before; the assistant is not (its readiness is its Telegram bot's).
    assert.equal((await whatsappView()).status, 'failed');
    assert.equal((await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data.status, 'active');
    e.tg.userSends(BOT, 7003, { text: 'still here?' });
    await e.tg.waitForSent((m) => m.chat_id === 7003 && m.text === 'You said: still here?');
    // A redeploy starts the worker with the same (still revoked) number: it comes back for Telegram.
    assert.equal((await e.api('POST', `/api/v1/assistants/${id}/redeploy`)).status, 200);
    const view = await e.waitForStatus(id, ['active', 'failed'], 30_000);
    assert.equal(view.status, 'active', view.statusMessage);
    e.tg.userSends(BOT, 7003, { text: 'after the redeploy' });
    await e.tg.waitForSent((m) => m.chat_id === 7003 && m.text === 'You said: after the redeploy');
    assert.equal((await whatsappView()).status, 'failed', 'the number still says what to fix');
  });

  test('DELETE: the number is silent within 5 s; Telegram still answers', async () => {
    const fresh = wa.addNumber();
    await attach(fresh);
    await wa.userSends(fresh.phoneNumberId, bob, { text: 'one' });
    await textTo(bob.waId, (b) => b === 'You said: one');
    const del = await e.api('DELETE', `/api/v1/assistants/${id}/channels/whatsapp`);
    assert.equal(del.status, 200, del.text);
    const health = await until(
      'the worker to drop the channel',
      async () => {
        const d = await e.runtime.services.deployments.findById(id);
        const h = await e.runtime.services.workers.assistantCall(d!.workerName, 'GET', '/health');
        return h.status === 200 && !(h.json as any).channels?.length ? h : undefined;
      },
      5_000,
    );
    assert.ok(health);
    e.tg.userSends(BOT, 7001, { text: 'and now' });
    await e.tg.waitForSent((m) => m.chat_id === 7001 && m.text === 'You said: and now');
  });
});
