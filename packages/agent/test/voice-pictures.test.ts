// Voice replies, pictures and files out (DESIGN §9.5), in the agent: what is spoken and how it is
// cut, what the tools refuse in words before any call, a refused user costing no speech call, and
// the chat API's Markdown. The agent calls the fake provider directly here; the gateway's metering
// is server/test/gateway-speech-images and voice-pictures-e2e.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '@berth/contracts/settings';
import { makeOggOpus } from '@berth/testkit';
import { speechParts, SPEECH_PART_CHARS } from '../src/channels/telegram/send-media.js';
import { sendFileTool, FILE_MAX_BYTES } from '../src/tools/files/index.js';
import { generateImageTool } from '../src/tools/images/index.js';
import { ProviderError } from '../src/model/provider.js';
import { ToolFailure, type OutFile } from '../src/tools/tool.js';
import type { Painter } from '../src/model/media-out.js';
import { filesMarkdown } from '../src/channels/api/markdown-files.js';
import { en as TEXTS } from '../src/channels/telegram/texts/en.js';
import { startServe, withServe, fakeModel } from './helpers/serve.js';
import { fakeTelegramBed } from './helpers/bed.js';
import { runTurn } from '../src/core/turn.js';

const TOKEN = '7000000163:AAvoicePicturesAgentTestToken_abcdefgh';
const { tg, provider } = fakeTelegramBed(TOKEN);

function turnContext() {
  const files: OutFile[] = [];
  return {
    files,
    ctx: {
      tenant: 't',
      attach: (f: OutFile) => void files.push(f),
      attached: (k: OutFile['kind']) => files.filter((f) => f.kind === k).length,
    },
  };
}

test('a long answer is spoken in parts of at most 4,096 characters, cut between sentences, every word once', () => {
  const sentence = 'Berth speaks long answers in several voice notes, one after another. ';
  const html = [sentence.repeat(60), sentence.repeat(60)]; // two Telegram parts, ~8,300 characters
  const parts = speechParts(html);
  assert.equal(parts.length, 3);
  assert.ok(parts.every((p) => [...p].length <= SPEECH_PART_CHARS));
  assert.ok(
    parts.every((p) => p.endsWith('.')),
    'each part ends at a sentence',
  );
  assert.equal(parts.join(' ').replace(/\s+/g, ' '), html.join('\n').replace(/\s+/g, ' ').trim());
  // Links are in the text beside the voice note, not read out; HTML tags are never spoken.
  assert.deepEqual(speechParts(['See <b>this</b>: https://example.com/a?b=1 now.']), ['See this: now.']);
  // Nothing to say aloud: no part, so no speech call.
  assert.deepEqual(speechParts(['…']), []);
  assert.deepEqual(speechParts(['<a href="https://example.com">https://example.com</a>']), []);
  // At most four parts: a very long answer stays text beyond them.
  assert.equal(speechParts([sentence.repeat(400)]).length, 4);
});

test('send_file: a text file is attached; a bad name, an empty or an over-1 MB file is refused in words', async () => {
  const { files, ctx } = turnContext();
  const ok = await sendFileTool.run({ name: 'sales.csv', content: 'a,b\n1,2\n' }, AbortSignal.timeout(1000), ctx);
  assert.match(ok, /sales\.csv is sent/);
  assert.deepEqual(
    files.map((f) => [f.kind, f.name, f.mimeType, Buffer.from(f.bytes).toString()]),
    [['document', 'sales.csv', 'text/csv', 'a,b\n1,2\n']],
  );
  const refused = async (args: Record<string, unknown>, why: RegExp) =>
    assert.rejects(
      sendFileTool.run(args, AbortSignal.timeout(1000), ctx),
      (e) => e instanceof ToolFailure && why.test(e.message),
    );
  await refused({ name: '../etc/passwd.csv', content: 'x' }, /plain file name/);
  await refused({ name: 'run.exe', content: 'x' }, /one of these extensions/);
  await refused({ name: 'empty.md', content: '  ' }, /content/);
  await refused({ name: 'big.txt', content: 'x'.repeat(FILE_MAX_BYTES + 1) }, /at most 1048576/);
  assert.equal(files.length, 1, 'nothing refused was attached');
});

test('generate_image: past the per-answer limit or with the allowance spent, refused in words; the first makes no call', async () => {
  let calls = 0;
  let fail: Error | undefined;
  const painter: Painter = {
    async paint() {
      calls++;
      if (fail) throw fail;
      return { bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), mimeType: 'image/png' };
    },
  };
  const tool = generateImageTool(painter, 1);
  const { files, ctx } = turnContext();
  await tool.run({ prompt: 'a lighthouse' }, AbortSignal.timeout(1000), ctx);
  assert.equal(files.length, 1);
  await assert.rejects(tool.run({ prompt: 'another' }, AbortSignal.timeout(1000), ctx), /At most 1 picture per answer/);
  assert.equal(calls, 1, 'the second picture made no call');
  fail = new ProviderError('credits', 'gateway', 429, 'The monthly allowance is used up.');
  const next = turnContext();
  await assert.rejects(
    tool.run({ prompt: 'a boat' }, AbortSignal.timeout(1000), next.ctx),
    (e) => e instanceof ToolFailure && /allowance for the period is spent/.test(e.message),
  );
  assert.equal(next.files.length, 0);
});

test("the chat API's Markdown: a picture as an image, a file as a link, both data: URLs", () => {
  const md = filesMarkdown([
    { kind: 'photo', name: 'picture.png', mimeType: 'image/png', bytes: new Uint8Array([1, 2]) },
    { kind: 'document', name: 'a [b].csv', mimeType: 'text/csv', bytes: new Uint8Array(Buffer.from('x,y')) },
  ]);
  assert.equal(md, '\n\n![picture.png](data:image/png;base64,AQI=)\n\n[a b.csv](data:text/csv;base64,eCx5)');
  assert.equal(filesMarkdown(undefined), '');
});

test('a user refused by the daily limit costs no speech call; an answered one gets a voice note', async () => {
  // The gateway's part (the catalog's model and voice, metering) is server-side: a counting stand-in here.
  const spokenTexts: string[] = [];
  const s = await startServe({
    speaker: {
      async speak(text) {
        spokenTexts.push(text);
        return makeOggOpus(1);
      },
    },
    provider,
    telegram: tg,
    botToken: TOKEN,
    config: {
      model: fakeModel(provider.url, { capabilities: ['speech'] }),
      settings: {
        ...defaultSettings(),
        voiceReplies: 'always',
        access: { mode: 'open', telegramUserIds: [], perUserDailyReplies: 1 },
      },
    },
  });
  try {
    const end = Date.now() + 10_000;
    while (!s.agent.health().ready && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    tg.userSends(TOKEN, 1631, { text: 'hello' });
    const voice = await tg.waitForMedia((m) => m.chat_id === 1631 && m.method === 'sendVoice');
    assert.equal(voice.caption, 'You said: hello');
    const spoken = spokenTexts.length;
    tg.userSends(TOKEN, 1631, { text: 'again' });
    await tg.waitForSent((m) => m.chat_id === 1631 && m.text === TEXTS.dailyLimit);
    assert.equal(spokenTexts.length, spoken, 'no speech call for a refused user');
    assert.deepEqual(spokenTexts, ['You said: hello']);
    assert.equal(tg.media.filter((m) => m.chat_id === 1631).length, 1);
  } finally {
    await s.close(true);
  }
});

test('the owner may allow more pictures per answer (settings.imagesPerTurn)', async () => {
  const painter: Painter = {
    paint: async () => ({ bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), mimeType: 'image/png' }),
  };
  const tool = generateImageTool(painter, 2);
  const { files, ctx } = turnContext();
  await tool.run({ prompt: 'a cat' }, AbortSignal.timeout(1000), ctx);
  await tool.run({ prompt: 'a dog' }, AbortSignal.timeout(1000), ctx);
  await assert.rejects(tool.run({ prompt: 'a cow' }, AbortSignal.timeout(1000), ctx), /At most 2 pictures per answer/);
  assert.equal(files.length, 2);
});

test("a scheduled task's turn makes no file it could not deliver: send_file refuses in words", async () => {
  const replies = [
    [
      {
        toolCalls: [
          { index: 0, id: 'c1', function: { name: 'send_file', arguments: '{"name":"a.csv","content":"x"}' } },
        ],
      },
    ],
    [{ content: 'done' }],
  ];
  const seen: any[] = [];
  const provider = {
    name: 'stub',
    async *stream(body: Record<string, unknown>) {
      seen.push(body);
      yield* replies.shift()!;
    },
  };
  let done: any;
  for await (const ev of runTurn({
    provider,
    modelId: 'm',
    messages: [{ role: 'user', content: 'send me a file' }],
    params: {},
    tools: [sendFileTool],
    signal: AbortSignal.timeout(5000),
    attachments: false,
  }))
    if (ev.type === 'done') done = ev;
  assert.equal(done.files, undefined);
  const tool = seen[1].messages.find((m: any) => m.role === 'tool');
  assert.match(tool.content, /Files cannot be sent here/);
});

test('chat API, streamed: a file the model sent arrives after its words as a Markdown link with a data: URL', () =>
  withServe({ provider }, async (s) => {
    const { openAiClient, streamedText } = await import('./helpers/openai.js');
    const client = openAiClient(s.url);
    const csv = 'city,temp\nLisbon,21\n';
    provider.queue.push({ toolCalls: [{ name: 'send_file', arguments: { name: 'weather.csv', content: csv } }] });
    provider.queue.push({ content: 'Here it is.' });
    const text = await streamedText(client, 'the weather as CSV please');
    assert.equal(text, `Here it is.\n\n[weather.csv](data:text/csv;base64,${Buffer.from(csv).toString('base64')})`);
  }));
