// Conversations as people have them (issue 62, DESIGN §9.4), from the fake Telegram's transcript:
// a burst of messages is one turn and every message is answered; a message written while the
// answer is on its way joins the next turn; an edit of a message still waiting is read as edited,
// one of an answered message changes nothing; a forum topic is a conversation of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings, type AssistantSettings } from '@berth/contracts/settings';
import { fakeTelegramBed, held, waitUntil } from './helpers/bed.js';
import { ownBots } from './helpers/own-bots.js';
import { closing } from './helpers/serve.js';
import { en } from '../src/channels/telegram/texts/en.js';
import { AgentConfigError, loadHostConfig } from '../src/config/env.js';

// The house default (1.5 s) is what these tests are about: not the suite's TELEGRAM_BURST_MS=0.
delete process.env.TELEGRAM_BURST_MS;

const { tg, provider } = fakeTelegramBed();
const bots = ownBots(
  { tg, provider },
  { firstId: 7400000001, tag: 'telegramBurstsTestToken', usernamePrefix: 'burst' },
);

/** An assistant with its own bot, so tests share no chats, limits or pollers. */
const assistant = (settings: Partial<AssistantSettings> = {}, username?: string) =>
  bots.serve({ settings: { ...defaultSettings(), ...settings } }, { username });

/** The user's words of each model call since `from`, in order. */
const userTurns = (from: number) =>
  provider.requests.slice(from).map((r) => {
    const last = [...r.body.messages].reverse().find((m: { role: string }) => m.role === 'user');
    return String(last.content);
  });

const botIdOf = (token: string) => Number(token.split(':')[0]);

test('25 messages in 5 s make at most 3 model calls, and every message is answered, in order', () =>
  closing(assistant(), async (s) => {
    const calls = provider.requests.length;
    const words = Array.from({ length: 25 }, (_, i) => `part ${i + 1}`);
    for (const w of words) tg.userSends(s.token, 1201, { text: w });
    await waitUntil(
      () => tg.sentTo(1201).flatMap((m) => m.text.replace(/^You said: /, '').split('\n')).length === 25,
      'every message answered',
    );
    const turns = userTurns(calls);
    assert.ok(turns.length <= 3, `model calls: ${turns.length}`);
    // Each call read its messages in the order they were written, and together they are all 25.
    assert.deepEqual(turns.join('\n').split('\n'), words);
    // A burst gathers at most 20: the model is never handed an unbounded flood in one call.
    assert.ok(turns.length >= 2 && turns.every((t) => t.split('\n').length <= 20), `turns: ${turns.length}`);
    const answers = tg.sentTo(1201).map((m) => m.text);
    assert.deepEqual(
      answers.flatMap((a) => a.replace(/^You said: /, '').split('\n')),
      words,
      'one answer per call, every message in one of them',
    );
    assert.equal(answers.length, turns.length);
    // The chat's budget (20 a minute) counts turns: nobody is told to slow down, nothing dropped.
    assert.ok(!answers.includes(en.slowDown));
  }));

test('a burst is one reply against the daily cap', () =>
  closing(
    assistant({
      access: { mode: 'open', telegramUserIds: [], perUserDailyReplies: 2 },
    }),
    async (s) => {
      const calls = provider.requests.length;
      for (const w of ['hi', 'I have', 'a question', 'about tax']) tg.userSends(s.token, 1211, { text: w });
      const answer = await tg.waitForSent((m) => m.chat_id === 1211);
      assert.equal(answer.text, 'You said: hi\nI have\na question\nabout tax');
      // Still one reply left today: the next burst is answered too, then the cap speaks.
      tg.userSends(s.token, 1211, { text: 'and one more' });
      await tg.waitForSent((m) => m.chat_id === 1211 && m.text === 'You said: and one more');
      tg.userSends(s.token, 1211, { text: 'over now' });
      await tg.waitForSent((m) => m.chat_id === 1211 && m.text === en.dailyLimit);
      assert.equal(provider.requests.length, calls + 2);
    },
  ));

test('a message written while the answer is on its way joins the next turn', async () => {
  // 1 ms: the two later messages are far apart by that measure; they are together because a turn runs.
  await closing(assistant({ burstMs: 1 }), async (s) => {
    const calls = provider.requests.length;
    const first = held();
    provider.queue.push({ content: 'first answer', until: first.until });
    tg.userSends(s.token, 1221, { text: 'one' });
    await waitUntil(() => provider.requests.length === calls + 1, 'the first turn runs');
    tg.userSends(s.token, 1221, { text: 'two' });
    await waitUntil(() => tg.unconfirmed(s.token) === 0, 'the bot has "two"');
    tg.userSends(s.token, 1221, { text: 'three' });
    await waitUntil(() => tg.unconfirmed(s.token) === 0, 'the bot has "three"');
    // Nothing else is asked of the model while the first answer is written.
    assert.equal(provider.requests.length, calls + 1);
    first.release();
    await tg.waitForSent((m) => m.chat_id === 1221 && m.text === 'You said: two\nthree');
    assert.deepEqual(userTurns(calls), ['one', 'two\nthree']);
    assert.deepEqual(
      tg.sentTo(1221).map((m) => m.text),
      ['first answer', 'You said: two\nthree'],
    );
  });
});

test('a file between words is answered in its place: the words before it, the file, then the words after', () =>
  closing(assistant(), async (s) => {
    const calls = provider.requests.length;
    tg.userSends(s.token, 1235, { text: 'before the file' });
    tg.userSends(s.token, 1235, {
      document: tg.document(s.token, Buffer.from('the note itself'), 'note.txt', 'text/plain'),
    });
    tg.userSends(s.token, 1235, { text: 'after the file' });
    await waitUntil(() => tg.sentTo(1235).length === 3, 'three answers').catch((e) => {
      throw new Error(`${e.message}: ${JSON.stringify(tg.sentTo(1235).map((m) => m.text))}`);
    });
    const answers = tg.sentTo(1235).map((m) => m.text);
    assert.equal(answers[0], 'You said: before the file');
    assert.match(answers[1]!, /note\.txt/);
    assert.equal(answers[2], 'You said: after the file');
    assert.equal(provider.requests.length, calls + 3);
  }));

test('burstMs 0 answers each message on its own', () =>
  closing(assistant({ burstMs: 0 }), async (s) => {
    const calls = provider.requests.length;
    for (const w of ['a', 'b', 'c']) tg.userSends(s.token, 1231, { text: w });
    await waitUntil(() => tg.sentTo(1231).length === 3, 'three answers');
    assert.deepEqual(userTurns(calls), ['a', 'b', 'c']);
  }));

test("the host's TELEGRAM_BURST_MS is the wait when the owner set none; the owner's burstMs wins", async () => {
  const env = (v: string) => ({ ADMIN_TOKEN: 'admin-token-0123456789abcdef', TELEGRAM_BURST_MS: v });
  assert.equal(loadHostConfig(env('0')).telegramBurstMs, 0);
  assert.equal(loadHostConfig({ ADMIN_TOKEN: 'admin-token-0123456789abcdef' }).telegramBurstMs, undefined);
  for (const bad of ['-1', '10001', '2.5', 'soon'])
    assert.throws(
      () => loadHostConfig(env(bad)),
      (err: Error) => err instanceof AgentConfigError && /TELEGRAM_BURST_MS/.test(err.message),
    );
  // A host whose operator set 0: each message its own turn, as the owner's burstMs 0 makes it.
  const served = (settings: Partial<AssistantSettings>) =>
    bots.serve((botToken) => ({
      settings: { ...defaultSettings(), ...settings },
      telegram: { botToken, apiRoot: tg.url, burstMs: 0 },
    }));
  const host = await served({});
  try {
    const calls = provider.requests.length;
    for (const w of ['a', 'b', 'c']) tg.userSends(host.token, 1291, { text: w });
    await waitUntil(() => tg.sentTo(1291).length === 3, 'three answers');
    assert.deepEqual(userTurns(calls), ['a', 'b', 'c']);
  } finally {
    await host.close(true);
  }
  const owner = await served({ burstMs: 1_500 });
  try {
    const calls = provider.requests.length;
    for (const w of ['a', 'b', 'c']) tg.userSends(owner.token, 1292, { text: w });
    await waitUntil(() => tg.sentTo(1292).length === 1, 'one answer');
    assert.equal(provider.requests.length, calls + 1, 'one turn for the three');
  } finally {
    await owner.close(true);
  }
});

test('an edit of a message still waiting is read as edited; an edit of an answered one changes nothing', () =>
  closing(assistant(), async (s) => {
    const calls = provider.requests.length;
    const first = held();
    provider.queue.push({ content: 'first answer', until: first.until });
    const one = tg.userSends(s.token, 1241, { text: 'one' });
    await waitUntil(() => provider.requests.length === calls + 1, 'the first turn runs');
    const second = tg.userSends(s.token, 1241, { text: 'teh second' });
    await waitUntil(() => tg.unconfirmed(s.token) === 0, 'the bot has the second message');
    tg.userEdits(s.token, 1241, tg.messageIdOf(s.token, second), 'the second');
    await waitUntil(() => tg.unconfirmed(s.token) === 0, 'the bot has the edit');
    first.release();
    await tg.waitForSent((m) => m.chat_id === 1241 && m.text === 'You said: the second');
    assert.deepEqual(userTurns(calls), ['one', 'the second']);

    // An answered message edited: no model call, no message; the next message is answered alone.
    tg.userEdits(s.token, 1241, tg.messageIdOf(s.token, one), 'one, changed');
    tg.userSends(s.token, 1241, { text: 'three' });
    await tg.waitForSent((m) => m.chat_id === 1241 && m.text === 'You said: three');
    assert.deepEqual(userTurns(calls), ['one', 'the second', 'three']);
    assert.equal(tg.sentTo(1241).length, 3);
    assert.equal(tg.undelivered.length, 0, 'edits are asked for (allowed_updates)');
  }));

test("a forum topic is a conversation of its own, answered in that topic; the General topic is the chat's", () =>
  closing(assistant({}, 'berthforum_bot'), async (s) => {
    const forum = { id: -1001250 };
    const alice = { id: 51, first_name: 'Alice' };
    const trips = tg.createTopic(s.token, forum, alice, 'Trips');
    const recipes = tg.createTopic(s.token, forum, alice, 'Recipes');
    const calls = provider.requests.length;

    const asked = tg.topicSends(s.token, forum, trips, alice, '@berthforum_bot plan Lisbon in May');
    const inTrips = await tg.waitForSent((m) => m.chat_id === forum.id && m.text.includes('Lisbon'));
    assert.equal(inTrips.message_thread_id, trips, 'the answer goes into the topic');
    assert.equal((inTrips.reply_parameters as { message_id: number }).message_id, asked.messageId);

    tg.topicSends(s.token, forum, recipes, alice, '@berthforum_bot a soup for tonight');
    const inRecipes = await tg.waitForSent((m) => m.chat_id === forum.id && m.text.includes('soup'));
    assert.equal(inRecipes.message_thread_id, recipes);
    const history = (n: number) => JSON.stringify(provider.requests[calls + n]!.body.messages);
    assert.ok(!history(1).includes('Lisbon'), "the recipes topic does not see the trips topic's history");

    tg.topicSends(s.token, forum, trips, alice, '@berthforum_bot and in June?');
    await tg.waitForSent((m) => m.chat_id === forum.id && m.text.includes('June'));
    assert.ok(history(2).includes('Lisbon'), 'the trips topic keeps its own history');
    assert.ok(!history(2).includes('soup'));

    // The General topic carries no thread id: the chat's own conversation, answered without one.
    tg.groupSends(s.token, { id: forum.id }, alice, '@berthforum_bot hello all');
    const general = await tg.waitForSent((m) => m.chat_id === forum.id && m.text.includes('hello all'));
    assert.equal(general.message_thread_id, undefined);
    assert.ok(!history(3).includes('Lisbon') && !history(3).includes('soup'));

    // A topic the bot opened: its opening message is in every message's reply_to_message, yet
    // chatter there is not a reply to the bot and is not answered.
    const bots = tg.createTopic(s.token, forum, { id: botIdOf(s.token), first_name: s.username, is_bot: true }, 'Bot');
    tg.topicSends(s.token, forum, bots, alice, 'just chatting in here');
    const pinged = tg.topicSends(s.token, forum, bots, alice, '@berthforum_bot now you');
    const answered = await tg.waitForSent((m) => m.chat_id === forum.id && m.text.includes('now you'));
    assert.equal((answered.reply_parameters as { message_id: number }).message_id, pinged.messageId);
    assert.ok(!tg.sentTo(forum.id).some((m) => m.text.includes('just chatting')));
    assert.equal(provider.requests.length, calls + 5);
  }));
