// grammY's Bot API calls go out on undici's pool (bot-api-fetch.ts): connections opened for one
// burst of replies serve the next, however many there were.
import { type TestContext, test } from 'node:test';
import { inspect } from 'node:util';
import assert from 'node:assert/strict';
import { Api, GrammyError, InputFile } from 'grammy';
import { FakeTelegram } from '@berth/testkit';
import { botApiFetch } from '../src/channels/telegram/bot-api-fetch.js';
import { DRAFT_GRACE_MS, LivePreview } from '../src/channels/telegram/live-preview.js';

const TOKEN = '7012345678:AAconnectionsTestToken_0123456789abcde';

/** A loopback Telegram with one bot, its grammY API on botApiFetch, and bursts of `size` replies. */
async function telegram(t: TestContext, size = 0) {
  const tg = await new FakeTelegram().start();
  t.after(() => tg.stop());
  tg.addBot(TOKEN, 'connections_bot');
  const api = new Api(TOKEN, { apiRoot: tg.url, fetch: botApiFetch });
  const burst = (round: number) =>
    Promise.all(Array.from({ length: size }, (_, i) => api.sendMessage(100 + i, `round ${round}, chat ${i}`)));
  return { tg, api, burst };
}

test("a second burst of 400 replies opens no connection to Telegram: the first burst's are kept", async (t) => {
  const { tg, burst } = await telegram(t, 400);
  await burst(1);
  const first = tg.connectionsOpened;
  assert.ok(first > 256, `the first burst ran its calls side by side (${first} connections)`);
  await burst(2);
  // node-fetch's http.Agent kept 256 idle sockets and opened 144 again here. A few may still open:
  // a connection whose last answer is being read counts as busy for a moment.
  const again = tg.connectionsOpened - first;
  assert.ok(again <= 8, `${again} connections opened again`);
  assert.equal(tg.sent.filter((m) => m.text.startsWith('round 2')).length, 400);
});

test("connections idle for longer than undici's default 4 s still serve the next burst", async (t) => {
  const { tg, burst } = await telegram(t, 50);
  tg.namesKeepAlive = false;
  await burst(1);
  const first = tg.connectionsOpened;
  // The wall clock is the subject: a pause past undici's default idle time (when the server names
  // none), as between two messages of a conversation.
  await new Promise((r) => setTimeout(r, 4_500));
  await burst(2);
  const again = tg.connectionsOpened - first;
  assert.ok(again <= 4, `${again} connections opened again after the pause (of ${first})`);
});

test('a file goes up as multipart and a refusal comes back as grammY’s error', async (t) => {
  const { tg, api } = await telegram(t);
  const pdf = Buffer.from('%PDF-1.4 a document of some bytes');
  await api.sendDocument(42, new InputFile(pdf, 'notes.pdf'), { caption: 'Your notes ✓' });
  const sent = tg.media.at(-1)!;
  assert.equal(sent.fileName, 'notes.pdf');
  assert.deepEqual(sent.bytes, pdf);
  assert.equal(sent.caption, 'Your notes ✓');
  await assert.rejects(api.editMessageText(42, 999_999, 'no such message'), (err: Error) => {
    assert.ok(err instanceof GrammyError);
    assert.equal(err.error_code, 400);
    return true;
  });
});

test('a Bot API root that is no URL fails the call without the bot token anywhere in the error', async () => {
  const api = new Api(TOKEN, { apiRoot: 'api.telegram.org', fetch: botApiFetch });
  await assert.rejects(api.getMe(), (err: Error) => {
    assert.equal(err.name, 'HttpError');
    // What a log line would print of it, nested errors and their own properties included.
    assert.ok(!inspect(err, { depth: 10, showHidden: true }).includes(TOKEN.split(':')[1]!));
    return true;
  });
});

/** A preview in a private chat whose first draft is on the wire (Telegram answers drafts `lateMs` late). */
async function draftOnTheWire(t: TestContext, lateMs: number) {
  const { tg, api } = await telegram(t);
  tg.slow.set('sendMessageDraft', lateMs);
  const received = new Promise<void>((resolve) => {
    tg.onCall = (method) => method === 'sendMessageDraft' && resolve();
  });
  const preview = new LivePreview({ api, chatId: 42, mode: 'draft' });
  preview.update(() => 'The answer <b>so far</b>');
  await received;
  return { tg, api, preview };
}

test('an answer ready while its draft is on the wire waits for that draft: it comes after it, on the same connection', async (t) => {
  const { tg, api, preview } = await draftOnTheWire(t, 300);
  await preview.close();
  // undici reuses a connection a loop turn after its answer (it waits out a server that said
  // keep-alive and closes anyway); on a busy host the pool's other idle connections serve meanwhile.
  await new Promise((r) => setImmediate(r));
  await api.sendMessage(42, 'The answer, whole');
  // Cutting the draft off destroyed its connection (the answer opened a second one), and the fake,
  // which had the whole draft, still showed it after the answer.
  assert.equal(tg.connectionsOpened, 1, 'the answer went out on the draft’s connection');
  assert.equal(tg.drafts.length, 1);
  const answer = tg.sent.find((m) => m.text === 'The answer, whole')!;
  assert.ok(tg.drafts[0]!.at <= answer.at!, 'the draft was shown before the answer, not after');
});

test('a draft Telegram does not answer holds the answer back no longer than the grace time', async (t) => {
  const { tg, api, preview } = await draftOnTheWire(t, 60_000);
  const started = Date.now();
  await preview.close();
  const held = Date.now() - started;
  assert.ok(held >= DRAFT_GRACE_MS - 50 && held < DRAFT_GRACE_MS + 1_000, `the answer waited ${held} ms`);
  await api.sendMessage(42, 'The answer, whole');
  assert.ok(tg.sent.some((m) => m.text === 'The answer, whole'));
});
