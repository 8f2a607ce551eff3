// Photos, voice notes and documents over Telegram (DESIGN §7.3), against the Bot API fake serving
// getFile and file downloads with bytes made here (a PNG, an Ogg/Opus voice note, PDFs), and the
// model fake recording image parts and transcriptions. Bad files get a sentence: no model call,
// nothing stored, and the bot keeps answering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeOggOpus, makePdf, makePng, pdfOf } from '@berth/testkit';
import { MODEL_KEY, startServe } from './helpers/serve.js';
import { telegramSession } from '../src/storage/sessions.js';
import { en as TEXTS } from '../src/channels/telegram/texts/en.js';
import { DOCUMENT_MAX_CHARS } from '../src/media/documents.js';
import { fakeTelegramBed } from './helpers/bed.js';

const TOKEN = '7000000101:AAmediaFakeTokenForAgentTests_abcdefgh';
const OTHER = '7000000102:AAotherBotTokenForAgentTests_abcdefgh';
const { tg, provider } = fakeTelegramBed(TOKEN, OTHER);

const model = (extra: object = {}) => ({
  provider: 'fakeai',
  baseUrl: provider.url,
  modelId: 'fake-vision-1',
  apiKey: MODEL_KEY,
  ...extra,
});

async function serve(extra: object) {
  const s = await startServe({ provider, telegram: tg, botToken: TOKEN, config: { model: model(extra) } });
  const end = Date.now() + 10_000;
  while (!s.agent.health().ready) {
    if (Date.now() > end) throw new Error('agent not ready');
    await new Promise((r) => setTimeout(r, 20));
  }
  const history = (chat: number) =>
    s.store.load('test-agent', telegramSession(chat, s.store.chatEpoch('test-agent', chat)));
  return { s, history };
}

const lastUser = (i = -1) => {
  const msgs = provider.requests.at(i)!.body.messages as any[];
  return [...msgs].reverse().find((m) => m.role === 'user');
};

test('a photo with its caption reaches a vision model as a text part and a data-URL image part; history keeps "[photo] caption"', async () => {
  const { s, history } = await serve({ capabilities: ['vision'] });
  try {
    const png = makePng(8, 8);
    tg.userSends(TOKEN, 701, { photo: tg.photo(TOKEN, png, { width: 8, height: 8 }), caption: 'What colour is this?' });
    const reply = await tg.waitForSent((m) => m.chat_id === 701);
    assert.equal(reply.text, 'You said: What colour is this? [1 image]');
    assert.deepEqual(lastUser().content, [
      { type: 'text', text: 'What colour is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
    ]);
    assert.deepEqual(
      history(701).map((m) => m.content),
      ['[photo] What colour is this?', 'You said: What colour is this? [1 image]'],
    );
    // The next turn sends the placeholder, never the bytes again.
    tg.userSends(TOKEN, 701, { text: 'and now?' });
    await tg.waitForSent((m) => m.chat_id === 701 && m.text === 'You said: and now?');
    assert.ok(!JSON.stringify(provider.requests.at(-1)!.body).includes('base64'));
  } finally {
    await s.close(true);
  }
});

test('a model without vision: one sentence saying what the bot reads, no download, no model call, nothing stored', async () => {
  const { s, history } = await serve({});
  try {
    const calls = provider.requests.length;
    const downloads = tg.downloads.length;
    tg.userSends(TOKEN, 702, { photo: tg.photo(TOKEN, makePng()), caption: 'look' });
    const reply = await tg.waitForSent((m) => m.chat_id === 702);
    assert.equal(reply.text, TEXTS.noVision);
    assert.equal(provider.requests.length, calls);
    assert.equal(tg.downloads.length, downloads);
    assert.deepEqual(history(702), []);
  } finally {
    await s.close(true);
  }
});

test('a voice note is transcribed by the provider and the transcript is the turn; history keeps "[voice] transcript"', async () => {
  const { s, history } = await serve({ transcriptionModel: 'whisper-1' });
  try {
    const ogg = makeOggOpus(3);
    provider.transcribe = () => 'remind me to buy milk';
    tg.userSends(TOKEN, 703, { voice: tg.voice(TOKEN, ogg, 3) });
    const reply = await tg.waitForSent((m) => m.chat_id === 703);
    assert.equal(reply.text, 'You said: remind me to buy milk');
    const t = provider.transcriptions.at(-1)!;
    assert.equal(t.model, 'whisper-1');
    assert.equal(t.headers.authorization, `Bearer ${MODEL_KEY}`);
    assert.deepEqual(t.bytes, ogg);
    assert.equal(t.fileType, 'audio/ogg');
    assert.deepEqual(
      history(703).map((m) => m.content),
      ['[voice] remind me to buy milk', 'You said: remind me to buy milk'],
    );
    // Over the duration cap: a sentence before any download.
    const downloads = tg.downloads.length;
    tg.userSends(TOKEN, 704, { voice: tg.voice(TOKEN, ogg, 11 * 60) });
    assert.equal((await tg.waitForSent((m) => m.chat_id === 704)).text, TEXTS.audioTooLong);
    assert.equal(tg.downloads.length, downloads);
  } finally {
    await s.close(true);
  }
});

test('a PDF is read into the turn (off the event loop); a long text file is cut with a note the user sees', async () => {
  const { s, history } = await serve({});
  try {
    const pdf = makePdf(['Invoice 42: total 1,234.50 EUR', 'Due 2026-12-01']);
    tg.userSends(TOKEN, 705, {
      document: tg.document(TOKEN, pdf, 'invoice.pdf', 'application/pdf'),
      caption: 'When is it due?',
    });
    await tg.waitForSent((m) => m.chat_id === 705);
    const text = lastUser().content as string;
    assert.match(text, /When is it due\?/);
    assert.match(text, /\[document invoice\.pdf\]/);
    assert.match(text, /Invoice 42: total 1,234\.50 EUR/);
    assert.match(text, /Due 2026-12-01/);
    assert.equal(history(705)[0]!.content, '[document invoice.pdf] When is it due?');

    const long = Buffer.from('a,b,c\n'.repeat(10_000));
    tg.userSends(TOKEN, 706, { document: tg.document(TOKEN, long, 'data.csv', 'text/csv') });
    const note = await tg.waitForSent((m) => m.chat_id === 706);
    assert.equal(note.text, `data.csv is long: I read only the first ${DOCUMENT_MAX_CHARS} characters.`);
    await tg.waitForSent((m) => m.chat_id === 706 && m.text.startsWith('You said:'));
    const sent = lastUser().content as string;
    assert.ok(sent.length < DOCUMENT_MAX_CHARS + 500, `${sent.length} characters sent`);
    assert.match(sent, /I read only the first/);
  } finally {
    await s.close(true);
  }
});

test('bad files get a sentence, nothing stored, no model call, and the bot keeps answering', async () => {
  const { s, history } = await serve({ capabilities: ['vision'], transcriptionModel: 'whisper-1' });
  try {
    const png = makePng();
    // PDF bombs: a page tree that says a million pages; an object nested 100,000 arrays deep.
    const manyPages = pdfOf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 1000000 >>']);
    const deep = pdfOf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>`,
      `<< /Length 10 /X ${'['.repeat(100_000)}${']'.repeat(100_000)} >>\nstream\nBT (x) Tj ET\nendstream`,
    ]);
    const otherBots = tg.photo(OTHER, png);
    const cases: Array<[number, object, RegExp | string]> = [
      [711, { photo: tg.photo(TOKEN, makePng(16, 16), { announce: 60 }) }, TEXTS.downloadFailed], // larger than announced
      [712, { photo: tg.photo(TOKEN, makePng(16, 16), { truncateTo: 20 }) }, TEXTS.downloadFailed], // breaks off
      [713, { document: tg.document(TOKEN, manyPages, 'bomb.pdf', 'application/pdf') }, /could not read that document/],
      [714, { document: tg.document(TOKEN, deep, 'deep.pdf', 'application/pdf') }, /could not read that document/],
      [715, { document: tg.document(TOKEN, Buffer.from('plain words'), 'cat.png', 'image/png') }, TEXTS.notImage],
      [716, { voice: tg.voice(TOKEN, makeOggOpus(1), 11 * 60) }, TEXTS.audioTooLong],
      [717, { photo: otherBots }, TEXTS.downloadFailed], // another bot's file id
      // getFile answering a path with `..` segments: never downloaded (issue 57).
      [721, { photo: tg.photo(TOKEN, png, { filePath: 'photos/../photos/file_x.jpg' }) }, TEXTS.downloadFailed],
      [
        718,
        {
          document: tg.document(TOKEN, Buffer.alloc(10), 'big.pdf', 'application/pdf', { announce: 21 * 1024 * 1024 }),
        },
        TEXTS.fileTooBig,
      ],
      [
        719,
        { document: tg.document(TOKEN, Buffer.from([0, 1, 2, 3]), 'tool.exe', 'application/octet-stream') },
        TEXTS.unsupportedDocument,
      ],
    ];
    const calls = provider.requests.length;
    for (const [chat, message] of cases) tg.userSends(TOKEN, chat, message);
    for (const [chat, , want] of cases) {
      const reply = await tg.waitForSent((m) => m.chat_id === chat, 30_000);
      if (typeof want === 'string') assert.equal(reply.text, want, `chat ${chat}`);
      else assert.match(reply.text, want, `chat ${chat}`);
      assert.deepEqual(history(chat), [], `chat ${chat} stored nothing`);
    }
    assert.equal(provider.requests.length, calls, 'no model call for any of them');
    assert.ok(!tg.downloads.some((p) => p.includes('..')), `downloads: ${JSON.stringify(tg.downloads)}`);
    tg.userSends(TOKEN, 720, { text: 'still there?' });
    assert.equal((await tg.waitForSent((m) => m.chat_id === 720)).text, 'You said: still there?');
  } finally {
    await s.close(true);
  }
});
