// The assistant speaks and shows (issue 63, DESIGN §9.5), read from the fake Telegram's transcript:
// a voice note in, a voice note and its text out; a picture asked for arrives as a photo; a CSV
// asked for arrives as a document; the ledger shows each at its catalog price; a managed bot
// with its allowance spent refuses in words and calls no provider. The real control plane, its
// real agent host and gateway, FakeTelegram, the fake provider (which speaks and draws real bytes).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeOggOpus } from '@berth/testkit';
import { defaultSettings } from '@berth/contracts/settings';
import { FAKE_MEDIA } from './helpers/e2e.js';
import { startMeteredBot } from './helpers/metered-bot.js';
import { eventually } from './helpers/eventually.js';
import { audioSeconds } from '../src/billing/gateway/audio.js';
import { imageNano, speechNano } from '../src/billing/gateway/media-out.js';

const BOT = '7300000163:AAvoicePicturesFilesOutBotToken_abcdef';
const CREDITS = /used up my message allowance/;

const { e, id } = await startMeteredBot(BOT, { allowanceUsd: 5 }, {}, { media: true });
after(() => e.close());

/** The ledger's rows of this deployment: what was booked, at what cost. */
const ledger = async () => {
  await e.runtime.services.billing.settles.flush();
  return e.runtime.store.db
    .selectFrom('usage_records')
    .select(['model', 'cost_nano', 'prompt_tokens'])
    .where('deployment_id', '=', id)
    .execute();
};
const booked = async (model: string) =>
  (await ledger()).filter((r) => r.model === model).map((r) => Number(r.cost_nano));

async function settings(extra: object) {
  const res = await e.api('PUT', `/api/v1/assistants/${id}/settings`, { ...defaultSettings(), ...extra });
  assert.equal(res.status, 200, res.text);
}

test('when spoken to: a voice note in, a voice note with its text as caption out, the speech booked per character', async () => {
  await settings({ voiceReplies: 'when-spoken-to' });
  const answer = 'Sunny and 21 degrees in Lisbon today.';
  e.provider.transcribe = () => 'what is the weather in Lisbon?';
  e.provider.queue.push({ content: answer });
  e.tg.userSends(BOT, 6301, { voice: e.tg.voice(BOT, makeOggOpus(3), 3) });
  const voice = await e.tg.waitForMedia((m) => m.chat_id === 6301 && m.method === 'sendVoice', 20_000);
  assert.equal(voice.caption, answer, 'the text is kept as the caption');
  assert.ok((await audioSeconds(voice.bytes, 'audio/ogg'))! >= 1, 'a playable OGG/Opus voice note');
  const spoken = e.provider.speeches.at(-1)!;
  assert.equal(spoken.body.input, answer);
  assert.equal(spoken.body.voice, 'alloy');
  assert.equal(spoken.body.response_format, 'opus');
  assert.deepEqual(
    await eventually(
      () => booked('gpt-4o-mini-tts'),
      (r) => r.length === 1,
    ),
    [speechNano(FAKE_MEDIA.speech.pricePer1MChars, answer.length)],
  );
  // Written to, the same bot answers in text only: no speech call.
  const speeches = e.provider.speeches.length;
  e.provider.queue.push({ content: 'Typed answer.' });
  e.tg.userSends(BOT, 6301, { text: 'and tomorrow?' });
  await e.tg.waitForSent((m) => m.chat_id === 6301 && m.text === 'Typed answer.', 15_000);
  assert.equal(e.provider.speeches.length, speeches);
});

test('always: a long answer is text messages beside voice notes spoken in parts', async () => {
  await settings({ voiceReplies: 'always' });
  const sentence = 'This sentence is part of a long answer that the assistant reads out loud. ';
  const answer = sentence.repeat(70).trim(); // ~5,200 characters: two messages, two voice notes
  e.provider.queue.push({ content: answer });
  const before = e.tg.media.length;
  const spokenBefore = e.provider.speeches.length;
  e.tg.userSends(BOT, 6302, { text: 'tell me a lot' });
  await eventually(
    async () => e.tg.media.slice(before).filter((m) => m.chat_id === 6302 && m.method === 'sendVoice'),
    (v) => v.length === 2,
    20_000,
  );
  const texts = e.tg.sent.filter((m) => m.chat_id === 6302);
  assert.equal(texts.map((m) => m.text).join(' ').length, answer.length, 'the whole text is kept');
  const voices = e.tg.media.slice(before).filter((m) => m.chat_id === 6302);
  assert.ok(
    voices.every((v) => v.caption === undefined),
    'beside the text, not as captions',
  );
  const parts = e.provider.speeches.slice(spokenBefore).map((s) => s.body.input as string);
  assert.equal(parts.length, 2);
  assert.ok(parts.every((p) => p.length <= 4096));
  assert.equal(parts.join(' '), answer, 'every word spoken once, none cut');
  await settings({ voiceReplies: 'off' });
});

test('a picture asked for arrives as a photo, booked at the price of one image', async () => {
  e.provider.queue.push({ toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a lighthouse at dusk' } }] });
  e.provider.queue.push({ content: 'Here is your lighthouse.' });
  e.tg.userSends(BOT, 6303, { text: 'draw me a lighthouse' });
  const photo = await e.tg.waitForMedia((m) => m.chat_id === 6303 && m.method === 'sendPhoto', 20_000);
  assert.deepEqual([...photo.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
  await e.tg.waitForSent((m) => m.chat_id === 6303 && m.text === 'Here is your lighthouse.');
  assert.equal(e.provider.imageRequests.at(-1)!.body.prompt, 'a lighthouse at dusk');
  assert.deepEqual(await booked('gpt-image-1'), [imageNano(FAKE_MEDIA.images.pricePerImage)]);
});

test('a second picture in one answer is refused in words by default, with no provider call', async () => {
  const draws = e.provider.imageRequests.length;
  const draw = { name: 'generate_image', arguments: { prompt: 'a cat' } };
  e.provider.queue.push({ toolCalls: [draw, { ...draw, arguments: { prompt: 'a dog' } }] });
  e.provider.queue.push({ content: 'One picture only.' });
  e.tg.userSends(BOT, 6304, { text: 'draw a cat and a dog' });
  await e.tg.waitForSent((m) => m.chat_id === 6304 && m.text === 'One picture only.', 20_000);
  assert.equal(e.provider.imageRequests.length - draws, 1);
  const toolResults = e.provider.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'tool');
  assert.match(toolResults.at(-1).content, /At most 1 picture per answer/);
  await e.tg.waitForMedia((m) => m.chat_id === 6304 && m.method === 'sendPhoto');
  assert.equal(e.tg.media.filter((m) => m.chat_id === 6304).length, 1);
});

test('a CSV asked for arrives as a document, costing nothing beyond the reply', async () => {
  const csv = 'month,total\nJanuary,1200\nFebruary,1350\n';
  e.provider.queue.push({ toolCalls: [{ name: 'send_file', arguments: { name: 'sales.csv', content: csv } }] });
  e.provider.queue.push({ content: 'The CSV is attached.' });
  e.tg.userSends(BOT, 6305, { text: 'export the sales as CSV' });
  const doc = await e.tg.waitForMedia((m) => m.chat_id === 6305 && m.method === 'sendDocument', 20_000);
  assert.equal(doc.fileName, 'sales.csv');
  assert.equal(doc.bytes.toString('utf8'), csv);
});

test('allowance spent: a voice note is refused in words; no transcription, chat, speech or image call', async () => {
  await settings({ voiceReplies: 'always' });
  const d = (await e.runtime.services.deployments.findById(id))!;
  const key = { deploymentId: id, periodEnd: d.currentPeriodEnd };
  await e.runtime.services.billing.settles.flush();
  const p = (await e.runtime.services.usage.period(key))!;
  // Everything left is held (as by calls in flight elsewhere): the next call finds nothing.
  assert.ok(await e.runtime.services.usage.reserve(key, p.allowanceNano! - p.usedNano - p.reservedNano));
  const calls = () =>
    e.provider.requests.length +
    e.provider.transcriptions.length +
    e.provider.speeches.length +
    e.provider.imageRequests.length;
  const before = calls();
  e.tg.userSends(BOT, 6306, { voice: e.tg.voice(BOT, makeOggOpus(2), 2) });
  const told = await e.tg.waitForSent((m) => m.chat_id === 6306, 15_000);
  assert.match(told.text, CREDITS);
  e.tg.userSends(BOT, 6306, { text: 'draw me a boat' });
  await e.tg.waitForSent((m) => m.chat_id === 6306 && m.message_id !== told.message_id, 15_000);
  assert.equal(calls(), before, 'no provider call of any kind');
  assert.equal(e.tg.media.filter((m) => m.chat_id === 6306).length, 0, 'no voice note, no picture');
});
