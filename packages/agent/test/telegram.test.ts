// The Telegram channel against the loopback Bot API fake, through grammY.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { GATEWAY, postChat, startServe, withServe } from './helpers/serve.js';
import { defaultSettings } from '@berth/contracts/settings';
import { SLOW_DOWN_SENTENCE } from '../src/channels/telegram/bot.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SessionStore, apiSession, telegramSession } from '../src/storage/sessions.js';
import { fakeTelegramBed, waitFor } from './helpers/bed.js';

const TOKEN = '7000000001:AAtelegramFakeTokenForAgentTests_abcd';
const { tg, provider } = fakeTelegramBed(TOKEN);

test('a user message is answered in its chat, with a typing indicator; health says connected', () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async (s) => {
    await waitFor(() => s.agent.health().ready);
    const h = await request(`${s.url}/health`, { headers: { authorization: `Bearer ${GATEWAY}` } });
    assert.equal(h.statusCode, 200);
    const health = (await h.body.json()) as any;
    assert.equal(health.telegram.connected, true);
    assert.equal(health.telegram.username, 'bot1_bot');
    // Without the token a probe learns readiness only: not the bot, not the model.
    const anon = await request(`${s.url}/health`);
    assert.equal(anon.statusCode, 200);
    assert.deepEqual(await anon.body.json(), { ready: true, status: 'ready', reason: null });
    tg.userSends(TOKEN, 501, { text: 'hi bot' });
    const reply = await tg.waitForSent((m) => m.chat_id === 501);
    assert.equal(reply.text, 'You said: hi bot');
    assert.ok(tg.actions.some((a) => a.chat_id === 501 && a.action === 'typing'));
  }));

test('/start, /help, /reset, non-text messages and long replies', () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async () => {
    tg.userSends(TOKEN, 502, { text: '/start' });
    assert.match((await tg.waitForSent((m) => m.chat_id === 502)).text, /Hello!.*\/reset/s);
    tg.userSends(TOKEN, 503, { text: '/help' });
    assert.match((await tg.waitForSent((m) => m.chat_id === 503)).text, /\/reset — Start a new conversation/);
    tg.userSends(TOKEN, 504, {
      sticker: {
        file_id: 'x',
        width: 1,
        height: 1,
        is_animated: false,
        is_video: false,
        type: 'regular',
        file_unique_id: 'y',
      },
    });
    assert.match((await tg.waitForSent((m) => m.chat_id === 504)).text, /cannot read this kind of message/);

    tg.userSends(TOKEN, 505, { text: 'my name is Ada' });
    await tg.waitForSent((m) => m.chat_id === 505);
    tg.userSends(TOKEN, 505, { text: 'what is my name?' });
    await tg.waitForSent((m) => m.chat_id === 505 && m.text.includes('what is my name'));
    assert.ok(
      provider.requests.at(-1)!.body.messages.some((m: any) => m.content === 'my name is Ada'),
      'one session per chat',
    );
    tg.userSends(TOKEN, 505, { text: '/reset' });
    await tg.waitForSent((m) => m.chat_id === 505 && m.text.startsWith('Started a new conversation'));
    tg.userSends(TOKEN, 505, { text: 'fresh start' });
    await tg.waitForSent((m) => m.chat_id === 505 && m.text.includes('fresh start'));
    assert.ok(
      !provider.requests.at(-1)!.body.messages.some((m: any) => m.content === 'my name is Ada'),
      '/reset starts a new session',
    );

    const long = Array.from({ length: 300 }, (_, i) => `Line ${i} ${'lorem ipsum '.repeat(2)}`).join('\n');
    provider.queue.push({ content: long });
    tg.userSends(TOKEN, 506, { text: 'tell me a lot' });
    await waitFor(
      () =>
        tg.sent.filter((m) => m.chat_id === 506).join('').length > 0 &&
        tg.sent
          .filter((m) => m.chat_id === 506)
          .map((m) => m.text)
          .join('\n').length >=
          long.length - 10,
    );
    const parts = tg.sent.filter((m) => m.chat_id === 506).map((m) => m.text);
    assert.ok(parts.length >= 2);
    for (const p of parts) assert.ok(p.length <= 4096);
    assert.equal(parts.join('\n').replace(/\s+/g, ' '), long.replace(/\s+/g, ' ').trim());
  }));

test('a restart never answers a message twice', async () => {
  const s = await startServe({ provider, telegram: tg, botToken: TOKEN });
  const id = tg.userSends(TOKEN, 507, { text: 'only once' });
  await tg.waitForSent((m) => m.chat_id === 507);
  await s.close(true);
  // The worst case: Telegram never saw the offset confirmed and hands the update out again.
  const bot = tg.bots.get(TOKEN)!;
  bot.updates.unshift({
    update_id: id,
    message: {
      message_id: 999,
      date: 0,
      chat: { id: 507, type: 'private' },
      from: { id: 507, is_bot: false, first_name: 'T' },
      text: 'only once',
    },
  });
  const again = await startServe({ provider, telegram: tg, botToken: TOKEN, dataDir: s.dataDir });
  try {
    const polls = tg.polls(TOKEN);
    await waitFor(() => tg.polls(TOKEN) >= polls + 1);
    tg.userSends(TOKEN, 508, { text: 'marker' });
    await tg.waitForSent((m) => m.chat_id === 508);
    assert.equal(tg.sent.filter((m) => m.chat_id === 507).length, 1);
  } finally {
    await again.close(true);
  }
});

test('a 429 from Telegram is retried after the time it asks for', () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async (s) => {
    await waitFor(() => s.agent.health().ready);
    tg.throttle.push({ method: 'sendMessage', retryAfter: 1 });
    const t0 = Date.now();
    tg.userSends(TOKEN, 509, { text: 'throttled' });
    const reply = await tg.waitForSent((m) => m.chat_id === 509);
    assert.equal(reply.text, 'You said: throttled');
    assert.ok(Date.now() - t0 >= 1000, 'waited retry_after');
  }));

test('a token Telegram rejects makes the agent not ready, with the reason on /health', () =>
  withServe({ provider, telegram: tg, botToken: '7999999999:AArejectedTokenNotKnownToTheFakeApi_xy' }, async (s) => {
    await waitFor(() => s.agent.health().status === 'failed');
    const res = await request(`${s.url}/health`);
    assert.equal(res.statusCode, 503);
    const h = (await res.body.json()) as any;
    assert.equal(h.ready, false);
    assert.match(h.reason, /Telegram rejected the bot token \(401/);
    assert.ok(!JSON.stringify(h).includes('AArejected'), 'the token is not echoed');
  }));

test("the long poll keeps Telegram's answers: a 429 is waited out, a token revoked while polling fails the agent", async () => {
  const token = '7000000099:AAtokenRevokedWhilePolling_abcdefghij';
  tg.addBot(token);
  const s = await startServe({ provider, telegram: tg, botToken: token });
  try {
    await waitFor(() => s.agent.health().ready && tg.activePolls(token) === 1);
    tg.throttle.push({ method: 'getUpdates', retryAfter: 1 });
    tg.userSends(token, 611, { text: 'before the 429' });
    assert.equal((await tg.waitForSent((m) => m.chat_id === 611)).text, 'You said: before the 429');
    tg.userSends(token, 612, { text: 'after the 429' });
    assert.equal((await tg.waitForSent((m) => m.chat_id === 612)).text, 'You said: after the 429');
    assert.equal(s.agent.health().status, 'ready');
    // Revoked: the open poll ends, and the next one is refused with 401.
    await waitFor(() => tg.activePolls(token) === 1);
    const bot = tg.bots.get(token)!;
    tg.bots.delete(token);
    bot.waiters.splice(0).forEach((wake) => wake());
    await waitFor(() => s.agent.health().status === 'failed');
    assert.match(s.agent.health().reason!, /Telegram rejected the bot token \(401/);
    assert.ok(!s.agent.health().reason!.includes('AAtokenRevoked'), 'the token is not echoed');
  } finally {
    await s.close(true);
  }
});

test('stopping the agent ends polling at once', async () => {
  const s = await startServe({ provider, telegram: tg, botToken: TOKEN });
  await waitFor(() => tg.activePolls(TOKEN) === 1);
  const t0 = Date.now();
  await s.close(true);
  assert.ok(Date.now() - t0 < 1000, `stop took ${Date.now() - t0} ms`);
  await waitFor(() => tg.activePolls(TOKEN) === 0, 2000);
});

// The budget counts turns: with bursts on, a flood is a few turns and all of it is answered
// (telegram-bursts.test.ts); with them off every message is a turn, and the budget holds.
test('one chat flooding is told once to slow down and not answered past its rate; other chats still are', async () => {
  const token = '7000000077:AAfloodingChatRateLimitToken_abcdefgh';
  tg.addBot(token);
  const s = await startServe({
    provider,
    telegram: tg,
    botToken: token,
    config: {
      settings: { ...defaultSettings(), burstMs: 0 },
      telegram: { botToken: token, apiRoot: tg.url, limits: { maxConcurrent: 8, perChatPerMinute: 5 } },
    },
  });
  try {
    await waitFor(() => s.agent.health().ready);
    const seen = provider.requests.length;
    for (let i = 0; i < 30; i++) tg.userSends(token, 777, { text: `flood ${i}` });
    tg.userSends(token, 778, { text: 'a quiet neighbour' });
    assert.equal((await tg.waitForSent((m) => m.chat_id === 778)).text, 'You said: a quiet neighbour');
    await tg.waitForSent((m) => m.chat_id === 777 && m.text === 'You said: flood 4');
    await new Promise((r) => setTimeout(r, 300));
    const toFlooder = tg.sent.filter((m) => m.chat_id === 777).map((m) => m.text);
    assert.equal(toFlooder.filter((t) => t.startsWith('You said')).length, 5, 'five answers, then nothing');
    assert.equal(toFlooder.filter((t) => t === SLOW_DOWN_SENTENCE).length, 1, 'told once');
    assert.equal(provider.requests.length - seen, 6, 'the model was asked six times, not 31');
  } finally {
    await s.close(true);
  }
});

test('a bot handles a bounded number of updates at once, however many chats write', async () => {
  const token = '7000000078:AAconcurrencyBoundChatsToken_abcdefgh';
  tg.addBot(token);
  await withServe(
    {
      provider,
      telegram: tg,
      botToken: token,
      config: { telegram: { botToken: token, apiRoot: tg.url, limits: { maxConcurrent: 3, perChatPerMinute: 20 } } },
    },
    async (s) => {
      await waitFor(() => s.agent.health().ready);
      provider.maxInflight = 0;
      for (let i = 0; i < 12; i++) provider.queue.push({ content: `answer ${i}`, delayMs: 100 });
      for (let i = 0; i < 12; i++) tg.userSends(token, 800 + i, { text: `hello ${i}` });
      for (let i = 0; i < 12; i++) await tg.waitForSent((m) => m.chat_id === 800 + i);
      assert.ok(provider.maxInflight <= 3, `at most 3 at once, saw ${provider.maxInflight}`);
      assert.ok(provider.maxInflight >= 2, 'and they do run side by side');
    },
  );
});

test("an API session id shaped like a Telegram chat's cannot read or write that chat's history", () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async (s) => {
    await waitFor(() => s.agent.health().ready);
    tg.userSends(TOKEN, 4242, { text: 'my telegram secret' });
    await tg.waitForSent((m) => m.chat_id === 4242);
    const res = await postChat(s.url, 'api turn', 'telegram:4242:0');
    assert.equal(res.statusCode, 200);
    await res.body.dump();
    const sentToModel = JSON.stringify(provider.requests.at(-1)!.body.messages);
    assert.ok(!sentToModel.includes('my telegram secret'), 'the API call saw no Telegram history');
    tg.userSends(TOKEN, 4242, { text: 'telegram again' });
    await tg.waitForSent((m) => m.chat_id === 4242 && m.text === 'You said: telegram again');
    const telegramTurn = JSON.stringify(provider.requests.at(-1)!.body.messages);
    assert.ok(telegramTurn.includes('my telegram secret') && !telegramTurn.includes('api turn'), 'nor wrote into it');
  }));

test('API sessions stored before the namespaces existed keep their history', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-agent-old-'));
  const old = new Database(join(dataDir, 'agent-sessions.sqlite'));
  old.exec(`CREATE TABLE messages (agent TEXT NOT NULL, session TEXT NOT NULL, seq INTEGER NOT NULL,
    role TEXT NOT NULL, content TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (agent, session, seq));
    INSERT INTO messages VALUES ('a', 'my-session', 1, 'user', 'old question', 'x'), ('a', 'telegram:5:0', 1, 'user', 'tg', 'x');`);
  old.close();
  const store = new SessionStore(dataDir);
  try {
    assert.deepEqual(store.load('a', apiSession('my-session')), [{ role: 'user', content: 'old question' }]);
    assert.deepEqual(store.load('a', telegramSession(5, 0)), [{ role: 'user', content: 'tg' }]);
    assert.deepEqual(store.load('a', 'my-session'), []);
  } finally {
    store.close();
  }
});
