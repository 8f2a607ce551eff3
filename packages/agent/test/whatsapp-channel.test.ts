// The WhatsApp channel on a real agent host (DESIGN §9.1): updates as the control plane's ingress
// delivers them (POST /agents/{name}/updates, Meta's webhook shape cut to one message) answered
// through FakeWhatsApp's Graph API in WhatsApp's formatting, with read receipts and the typing
// indicator; photos, voice notes and documents through the media pipeline; access rules and daily
// limits by phone number, apart from a Telegram user of the same bot; Meta's rate limits waited
// out; a revoked token failing the channel with a sentence; the 24-hour window refusing a reminder
// when it is asked for; channels applied live beside a Telegram bot that keeps running.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeTelegram, makeOggOpus, makePng, type WhatsAppNumber } from '@berth/testkit';
import { fakeModel } from './helpers/serve.js';
import { held, waitUntil } from './helpers/bed.js';
import { whatsappHostBed } from './helpers/whatsapp-host.js';

const ADMIN = 'admin-token-for-whatsapp-channel-0123456789';
const BOT = '7100000059:AAwhatsappBesideTelegramFakeToken_abcd';
const tg = new FakeTelegram();
before(async () => {
  await tg.start();
  tg.addBot(BOT);
});
after(async () => {
  await tg.stop();
});
const { wa, bed, call, whatsapp, putAgent, numberedAgent, deliver, textTo } = whatsappHostBed(
  ADMIN,
  'berth-whatsapp-',
  {
    defaultTelegramApiRoot: undefined,
  },
);

const alice = { waId: '16505551234', name: 'Alice' };
const bob = { waId: '447700900123', name: 'Bob' };

/** Alice's `text` to assistant `name`, once its turn reached the model: the answer `content` waits there until released. */
async function heldTurn(name: string, n: WhatsAppNumber, content: string, text: string) {
  const answer = held();
  bed.provider.queue.push({ content, until: answer.until });
  const asked = bed.provider.requests.length;
  await deliver(name, n, alice, { text });
  await waitUntil(() => bed.provider.requests.length > asked, 'the turn reached the model');
  return answer;
}

describe('text', () => {
  let n: WhatsAppNumber;
  before(async () => {
    n = await numberedAgent('wa-text');
  });

  test('a message is marked read with the typing indicator and answered in WhatsApp formatting', async () => {
    bed.provider.queue.push({ content: 'Here is **bold**, *italic* and ~~gone~~:\n\n```js\nlet x = 1;\n```' });
    const { id, res } = await deliver('wa-text', n, alice, { text: 'Format something' });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const sent = await textTo(alice.waId);
    assert.equal(sent.body.text.body, 'Here is *bold*, _italic_ and ~gone~:\n\n```\nlet x = 1;\n```');
    assert.equal(sent.phoneNumberId, n.phoneNumberId);
    const read = wa.reads.find((r) => r.messageId === id);
    assert.ok(read, 'marked read');
    assert.equal(read.typing, true, 'with the typing indicator');
  });

  test('a long answer comes in parts of at most 4,096 characters, nothing lost', async () => {
    const para = (i: number) => `Paragraph ${i} ${'word '.repeat(150).trim()}`;
    const long = Array.from({ length: 12 }, (_, i) => para(i)).join('\n\n');
    bed.provider.queue.push({ content: long });
    const before = wa.sent.length;
    await deliver('wa-text', n, bob, { text: 'Write a lot' });
    await textTo(bob.waId, (b) => b.includes('Paragraph 11'));
    const parts = wa.sent.slice(before).filter((m) => m.to === bob.waId);
    assert.ok(parts.length >= 2, `split into ${parts.length}`);
    for (const p of parts) assert.ok(p.body.text.body.length <= 4096);
    assert.equal(parts.map((p) => p.body.text.body).join('\n\n'), long);
  });

  test("Meta's throughput limit (130429) is waited out and the answer still arrives once", async () => {
    wa.rateLimitNext = 130429;
    bed.provider.queue.push({ content: 'After the limit.' });
    await deliver('wa-text', n, alice, { text: 'Again' });
    await textTo(alice.waId, (b) => b === 'After the limit.');
    assert.equal(wa.sent.filter((m) => m.body.text?.body === 'After the limit.').length, 1);
    assert.equal(bed.host.get('wa-text')!.channel('whatsapp')!.health().state, 'connected');
  });

  test('the same message delivered again under another key (a restarted host forgot its keys): one reply', async () => {
    const { payload } = wa.messagePayload(n.phoneNumberId, alice, { text: 'only once please' });
    wa.lastWroteAt(n.phoneNumberId, alice.waId, Date.now());
    for (const updateKey of ['k-first', 'k-again']) {
      const res = await call('POST', '/agents/wa-text/updates', {
        channel: 'whatsapp',
        channelId: 'ch-wa-text',
        updateKey,
        update: payload,
      });
      assert.equal(res.status, 200);
    }
    await textTo(alice.waId, (b) => b === 'You said: only once please');
    // The next message's answer comes after any second copy would have.
    await deliver('wa-text', n, alice, { text: 'then this' });
    await textTo(alice.waId, (b) => b === 'You said: then this');
    assert.equal(wa.sent.filter((m) => m.body.text?.body === 'You said: only once please').length, 1);
  });

  test('a status change (delivered, read) is taken and answers nothing', async () => {
    const before = wa.sent.length;
    const requests = bed.provider.requests.length;
    const res = await call('POST', '/agents/wa-text/updates', {
      channel: 'whatsapp',
      channelId: 'ch-wa-text',
      updateKey: 'status:1',
      update: wa.statusPayload(n.phoneNumberId, 'wamid.x', alice.waId, 'read'),
    });
    assert.equal(res.status, 200);
    // A message after it is answered: the status was passed over, not queued in front of it.
    bed.provider.queue.push({ content: 'Next.' });
    await deliver('wa-text', n, alice, { text: 'next' });
    await textTo(alice.waId, (b) => b === 'Next.');
    assert.equal(bed.provider.requests.length, requests + 1);
    assert.equal(wa.sent.length, before + 1);
  });
});

describe('media', () => {
  let n: WhatsAppNumber;
  before(async () => {
    n = await numberedAgent('wa-media');
  });

  test('a photo reaches a vision model as an image; without vision the user is told in a sentence', async () => {
    await putAgent('wa-vision', [whatsapp(n)], {
      model: fakeModel(bed.provider.url, { capabilities: ['vision'] }),
    });
    await deliver('wa-vision', n, alice, {
      image: { bytes: makePng(), mimeType: 'image/png', caption: 'What is this?' },
    });
    const answer = await textTo(alice.waId, (b) => b.startsWith('You said: What is this?'));
    assert.match(answer.body.text.body, /\[1 image\]/);
    const plain = await numberedAgent('wa-novision');
    await deliver('wa-novision', plain, bob, { image: { bytes: makePng(), mimeType: 'image/png' } });
    await textTo(bob.waId, (b) => b.startsWith('I cannot look at pictures'));
  });

  test('a voice note is transcribed and answered; a document is read', async () => {
    await putAgent('wa-voice', [whatsapp(n)], {
      model: fakeModel(bed.provider.url, { transcriptionModel: 'whisper-1' }),
    });
    bed.provider.transcribe = () => 'remind me about the dentist';
    await deliver('wa-voice', n, alice, { voice: { bytes: makeOggOpus(1) } });
    await textTo(alice.waId, (b) => b === 'You said: remind me about the dentist');
    assert.equal(bed.provider.transcriptions.length >= 1, true);
    const file = Buffer.from('Shopping list\n- apples\n- pears\n');
    await deliver('wa-voice', n, bob, {
      document: { bytes: file, mimeType: 'text/plain', filename: 'list.txt', caption: 'Read this' },
    });
    const doc = await textTo(bob.waId, (b) => b.includes('[document list.txt]'));
    assert.match(doc.body.text.body, /apples/);
    // The media was fetched with the number's token: GET /{media-id}, then its URL.
    assert.ok(wa.requests.some((r) => /^\/v[0-9.]+\/[0-9]+$/.test(r.path) && r.auth === `Bearer ${n.accessToken}`));
    assert.ok(wa.requests.some((r) => r.path.startsWith('/media/download/')));
  });
});

describe('end users by phone number', () => {
  let n: WhatsAppNumber;
  const same = 16505551234; // the same digits as Alice's number, as a Telegram user id

  test('memory and daily limits of a WhatsApp user are apart from a Telegram user of the same bot', async () => {
    n = wa.addNumber();
    const settings = {
      systemPrompt: 'You are helpful.',
      welcomeMessage: null,
      language: 'en',
      tools: { calculator: false, time: false, memory: false, reminders: false, fetch: false, webSearch: false },
      access: { mode: 'open', telegramUserIds: [], perUserDailyReplies: 2 },
      groups: 'off',
      historyChars: 24000,
    };
    const res = await call('PUT', '/agents/wa-users', {
      gatewayToken: 'gw-wa-users-0123456789abcdef',
      model: fakeModel(bed.provider.url),
      channels: [{ type: 'telegram', botToken: BOT, apiRoot: tg.url }, whatsapp(n)],
      settings: { ...(await defaults()), ...pick(settings) },
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    await waitUntil(() => bed.host.get('wa-users')?.state === 'connected', 'both connected');
    await deliver('wa-users', n, alice, { text: 'my secret word is tangerine' });
    await textTo(alice.waId, (b) => b.includes('tangerine'));
    await deliver('wa-users', n, alice, { text: 'second' });
    await textTo(alice.waId, (b) => b === 'You said: second');
    // Alice's third message today is past the cap of 2: one sentence, no model call.
    const calls = bed.provider.requests.length;
    await deliver('wa-users', n, alice, { text: 'third' });
    await textTo(alice.waId, (b) => b.startsWith('You have reached your messages for today'));
    assert.equal(bed.provider.requests.length, calls);
    // The Telegram user with the same digits has their own count and their own conversation.
    tg.userSends(BOT, same, { text: 'what was the word?', from: { id: same, first_name: 'Tele' } });
    await tg.waitForSent((m) => m.chat_id === same && m.text === 'You said: what was the word?');
    const seen = JSON.stringify(bed.provider.requests.at(-1)!.body.messages);
    assert.ok(!seen.includes('tangerine'), 'the WhatsApp conversation is not in the Telegram turn');
  });

  test('allowlist mode: only the listed numbers are answered; others get one sentence and no model call', async () => {
    const m = wa.addNumber();
    const base = await defaults();
    await putAgent('wa-allow', [whatsapp(m)], {
      settings: { ...base, access: { ...base.access, mode: 'allowlist', whatsappNumbers: [alice.waId] } },
    });
    const calls = bed.provider.requests.length;
    await deliver('wa-allow', m, bob, { text: 'let me in' });
    await textTo(bob.waId, (b) => b.startsWith('Sorry, this assistant only talks to'));
    assert.equal(bed.provider.requests.length, calls);
    await deliver('wa-allow', m, alice, { text: 'hello' });
    await textTo(alice.waId, (b) => b === 'You said: hello');
  });
});

describe('failures and the 24-hour window', () => {
  test('a revoked token: the channel fails with a sentence saying what to fix, in the health', async () => {
    const n = await numberedAgent('wa-revoked');
    wa.revokeToken(n.phoneNumberId);
    await deliver('wa-revoked', n, alice, { text: 'are you there?' });
    await waitUntil(() => bed.host.get('wa-revoked')!.channel('whatsapp')!.health().state === 'failed', 'failed');
    const health = (await call('GET', '/agents/wa-revoked/health')).json;
    const ch = health.channels.find((c: any) => c.type === 'whatsapp');
    assert.equal(ch.state, 'failed');
    assert.match(ch.error, /Meta refused the access token .*set it with PUT/);
    assert.ok(!ch.error.includes(n.accessToken));
    // Nothing more is taken: the control plane keeps the next message until new credentials come.
    const { res } = await deliver('wa-revoked', n, alice, { text: 'hello?' });
    assert.equal(res.status, 409);
  });

  test("Meta's refusal of one message (131047, the window closed meanwhile) shows in the health until a send succeeds", async () => {
    const n = await numberedAgent('wa-refused');
    const answer = await heldTurn('wa-refused', n, 'too late', 'slow answer please');
    wa.lastWroteAt(n.phoneNumberId, alice.waId, Date.now() - 25 * 60 * 60 * 1000);
    answer.release();
    const channel = bed.host.get('wa-refused')!.channel('whatsapp')!;
    await waitUntil(() => channel.health().error !== undefined, 'the refusal shown');
    assert.equal(channel.health().state, 'connected');
    assert.match(channel.health().error!, /131047/);
    assert.match((await call('GET', '/agents/wa-refused/health')).json.reason, /more than 24 hours/);
    await deliver('wa-refused', n, alice, { text: 'hello again' });
    await textTo(alice.waId, (b) => b === 'You said: hello again');
    await waitUntil(() => channel.health().error === undefined, 'cleared by the next message sent');
  });

  test('a token Meta refuses at start: failed at once, with the sentence', async () => {
    const n = wa.addNumber();
    await putAgent('wa-badtoken', [{ ...whatsapp(n), accessToken: 'EAAGnot-the-token-0123456789' }]);
    const h = bed.host.get('wa-badtoken')!.channel('whatsapp')!.health();
    assert.equal(h.state, 'failed');
    assert.match(h.error!, /Meta refused the access token/);
  });

  test('a reminder that would fall after the 24-hour window is refused when it is asked for, in words', async () => {
    const n = wa.addNumber();
    const base = await defaults();
    await putAgent('wa-window', [whatsapp(n)], {
      settings: { ...base, tools: { ...base.tools, reminders: true } },
    });
    const late = new Date(Date.now() + 30 * 60 * 60 * 1000).toISOString().slice(0, 19) + 'Z';
    const soon = new Date(Date.now() + 60 * 60 * 1000).toISOString().slice(0, 19) + 'Z';
    bed.provider.queue.push(
      { toolCalls: [{ name: 'schedule_message', arguments: { text: 'late', at: late } }] },
      { content: 'I cannot do that.' },
      { toolCalls: [{ name: 'schedule_message', arguments: { text: 'soon', at: soon } }] },
      { content: 'Done.' },
    );
    const before = bed.provider.requests.length;
    await deliver('wa-window', n, alice, { text: 'remind me in 30 hours' });
    await textTo(alice.waId, (b) => b === 'I cannot do that.');
    const toolAnswer = JSON.stringify(bed.provider.requests[before + 1]!.body.messages.at(-1));
    assert.match(toolAnswer, /only within 24 hours of your last message/);
    await deliver('wa-window', n, alice, { text: 'remind me in an hour' });
    await textTo(alice.waId, (b) => b === 'Done.');
    const pending = (await call('GET', '/agents/wa-window/reminders')).json;
    const texts = JSON.stringify(pending);
    assert.ok(texts.includes('soon') && !texts.includes('"late"'), texts);
  });
});

describe('messages taken but not answered', () => {
  test('a host stopped mid-turn answers the message at its next start, once; one older than 24 h is dropped', async () => {
    const n = await numberedAgent('wa-inbox');
    const answer = await heldTurn('wa-inbox', n, 'never sent', 'answer me after the restart');
    // A message the host took a day and more ago and never answered (a host down that long).
    const old = wa.messagePayload(n.phoneNumberId, bob, { text: 'stale question' });
    const oldMessage = (old.payload.entry[0]!.changes[0]!.value as any).messages[0];
    bed.store.setChannelValue(
      'wa-inbox',
      `whatsapp-inbox:${n.phoneNumberId}:${oldMessage.id}`,
      JSON.stringify({ message: oldMessage, name: 'Bob', at: Date.now() - 25 * 60 * 60 * 1000 }),
    );
    assert.equal((await call('DELETE', '/agents/wa-inbox')).status, 200);
    answer.release();
    await putAgent('wa-inbox', [whatsapp(n)]);
    await textTo(alice.waId, (b) => b === 'You said: answer me after the restart');
    await deliver('wa-inbox', n, alice, { text: 'and after' });
    await textTo(alice.waId, (b) => b === 'You said: and after');
    assert.ok(!wa.sent.some((m) => m.body.text?.body === 'never sent'));
    assert.equal(wa.sent.filter((m) => m.body.text?.body === 'You said: answer me after the restart').length, 1);
    const asked2 = JSON.stringify(bed.provider.requests.map((r) => r.body.messages));
    assert.ok(!asked2.includes('stale question'), 'the message older than the window is not answered');
  });
});

describe('live channels', () => {
  test('a WhatsApp number added, changed and removed on a running assistant; its Telegram bot keeps running', async () => {
    const bot = '7100000060:AAliveChannelsBesideTelegramToken_abcd';
    tg.addBot(bot);
    const res = await call('PUT', '/agents/wa-live', {
      gatewayToken: 'gw-wa-live-0123456789abcdef',
      model: fakeModel(bed.provider.url),
      channels: [{ type: 'telegram', botToken: bot, apiRoot: tg.url }],
    });
    assert.equal(res.status, 200);
    await waitUntil(() => bed.host.get('wa-live')?.state === 'connected', 'telegram connected');
    const telegram = bed.host.get('wa-live')!.channel('telegram');
    const n = wa.addNumber();
    const put = await call('PUT', '/agents/wa-live/channels', [whatsapp(n)]);
    assert.equal(put.status, 200, JSON.stringify(put.json));
    await waitUntil(() => bed.host.get('wa-live')!.channel('whatsapp')?.health().state === 'connected', 'wa up');
    await deliver('wa-live', n, alice, { text: 'live' });
    await textTo(alice.waId, (b) => b === 'You said: live');
    // Another number replaces the first; the same Telegram channel object runs throughout.
    const m = wa.addNumber();
    assert.equal((await call('PUT', '/agents/wa-live/channels', [whatsapp(m)])).status, 200);
    await waitUntil(() => bed.host.get('wa-live')!.channel('whatsapp')?.health().state === 'connected', 'wa again');
    // Bob's two messages are answered in order: by the second's answer the first was handled.
    assert.equal((await deliver('wa-live', n, bob, { text: 'old number' })).res.status, 200);
    await deliver('wa-live', m, bob, { text: 'new number' });
    await textTo(bob.waId, (b) => b === 'You said: new number');
    const asked = JSON.stringify(bed.provider.requests.map((r) => r.body.messages));
    assert.ok(!asked.includes('old number'), 'a message to the old number is not answered');
    assert.equal((await call('PUT', '/agents/wa-live/channels', [])).status, 200);
    assert.equal(bed.host.get('wa-live')!.channel('whatsapp'), undefined);
    assert.equal(bed.host.get('wa-live')!.channel('telegram'), telegram, 'Telegram was not restarted');
    assert.equal(telegram!.health().state, 'connected');
    const bad = await call('PUT', '/agents/wa-live/channels', [{ type: 'telegram', botToken: bot }]);
    assert.equal(bad.status, 400);
    const twice = await call('PUT', '/agents/wa-live/channels', [whatsapp(m), whatsapp(n)]);
    assert.equal(twice.status, 400);
    assert.match(twice.json.error.message, /at most one of each/);
    const shapeless = await call('PUT', '/agents/wa-live/channels', [{ type: 'whatsapp', phoneNumberId: 'x' }]);
    assert.equal(shapeless.status, 400);
    const missing = await call('PUT', '/agents/nobody/channels', []);
    assert.equal(missing.status, 404);
  });
});

async function defaults() {
  const { defaultSettings } = await import('@berth/contracts/settings');
  return defaultSettings();
}
const pick = (s: Record<string, unknown>) => ({ access: s.access });
