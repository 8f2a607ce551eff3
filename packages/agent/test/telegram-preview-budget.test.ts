// Previews within a budget (issue 64): a bot's Bot API calls stay under 25 a second with drafts
// counted, the host refreshes at most so many previews a second, and a held-back preview's text is
// shown a turn later, never lost. On a clock the test holds.
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import type { Api } from 'grammy';
import { LivePreview } from '../src/channels/telegram/live-preview.js';
import { Pacer, PreviewBudget, TELEGRAM_PACING } from '../src/channels/telegram/pacing.js';

const T0 = 1_000_000;

test("a bot's messages and drafts together stay under 25 calls a second", () => {
  const p = new Pacer(TELEGRAM_PACING, new PreviewBudget(1000));
  for (let chat = 1; chat <= 20; chat++) p.reserve(chat, T0);
  const allowed = Array.from({ length: 10 }, (_, i) => p.preview(T0 + i, false, true)).filter(Boolean).length;
  assert.equal(allowed, 5, '20 messages leave room for 5 drafts in that second');
  assert.equal(p.preview(T0 + 999, true, true), false, 'a first preview is held to the bot limit too');
  assert.equal(p.preview(T0 + 1000, false, true), true, 'the next second has room again');
});

test("the host's budget holds back refreshes across bots, never a chat's first preview", () => {
  const host = new PreviewBudget(3);
  const bots = [new Pacer(TELEGRAM_PACING, host), new Pacer(TELEGRAM_PACING, host)];
  const refreshes = Array.from({ length: 6 }, (_, i) => bots[i % 2]!.preview(T0, false, true));
  assert.deepEqual(refreshes, [true, true, true, false, false, false]);
  assert.equal(bots[1]!.preview(T0, true, true), true, "another chat's first preview still shows");
  assert.equal(bots[0]!.preview(T0 + 1000, false, true), true);
});

test('a preview held back shows its newest text at the next turn', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
  const drafts: string[] = [];
  const api = {
    sendMessageDraft: async (_chat: number, _id: number, html: string) => {
      drafts.push(html);
      return true;
    },
  } as unknown as Api;
  let open = true;
  const preview = new LivePreview({
    api,
    chatId: 1,
    mode: 'draft',
    budget: { preview: (_now, first) => first || open },
  });
  const flush = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };
  try {
    preview.update(() => 'Hel');
    await flush();
    open = false;
    mock.timers.tick(300);
    preview.update(() => 'Hello wor');
    mock.timers.tick(300);
    preview.update(() => 'Hello world');
    await flush();
    assert.deepEqual(drafts, ['Hel'], 'over budget: nothing more yet');
    open = true;
    mock.timers.tick(300);
    await flush();
    assert.deepEqual(drafts, ['Hel', 'Hello world'], 'the newest text, once there is room');
    await preview.close();
  } finally {
    mock.timers.reset();
  }
});
