// grammY's Bot API calls go out on undici's pool (bot-api-fetch.ts): connections opened for one
// burst of replies serve the next, however many there were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Api, GrammyError, InputFile } from 'grammy';
import { FakeTelegram } from '@berth/testkit';
import { botApiFetch } from '../src/channels/telegram/bot-api-fetch.js';

const TOKEN = '7012345678:AAconnectionsTestToken_0123456789abcde';

test("a second burst of 400 replies opens no connection to Telegram: the first burst's are kept", async (t) => {
  const tg = await new FakeTelegram().start();
  t.after(() => tg.stop());
  tg.addBot(TOKEN, 'connections_bot');
  const api = new Api(TOKEN, { apiRoot: tg.url, fetch: botApiFetch });
  const burst = (round: number) =>
    Promise.all(Array.from({ length: 400 }, (_, i) => api.sendMessage(100 + i, `round ${round}, chat ${i}`)));
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

test('a file goes up as multipart and a refusal comes back as grammY’s error', async (t) => {
  const tg = await new FakeTelegram().start();
  t.after(() => tg.stop());
  tg.addBot(TOKEN, 'connections_bot');
  const api = new Api(TOKEN, { apiRoot: tg.url, fetch: botApiFetch });
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
