// Forum topics are conversations of their own (DESIGN §9.4, issue 62), from the fake Telegram's
// transcript: /reset in one topic starts that topic anew and no other; the General topic keeps
// its own conversation and its own /reset; a conversation a topic had before topics had epochs of
// their own stays its own. A reminder or a scheduled task asked for in a topic arrives in that
// topic (the host's clock is moved to its time: scheduler/test-clock.ts); one stored before
// schedules kept the topic still arrives, in the chat as a whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSettings } from '@berth/contracts/settings';
import { fakeTelegramBed, waitUntil } from './helpers/bed.js';
import { ownBots } from './helpers/own-bots.js';
import { hostClock } from './helpers/host-clock.js';
import { closing } from './helpers/serve.js';
import { SessionStore, telegramSession } from '../src/storage/sessions.js';
import { en } from '../src/channels/telegram/texts/en.js';
import { TransferRepo } from '../src/storage/transfer.js';
import { userData } from '../src/storage/user-data.js';

const { tg, provider } = fakeTelegramBed();
const bots = ownBots(
  { tg, provider },
  { firstId: 7620000001, tag: 'telegramTopicsTestToken', usernamePrefix: 'topics' },
);

// A group's 20 messages a minute would make this transcript take a minute; the topics are what is tested.
const PACING = { perChatMs: 0, perGroupPerMinute: 1000, perBotPerSecond: 1000, perBotCallsPerSecond: 1000 };

/** An assistant with its own bot, so tests share no chats, limits or pollers. */
const assistant = (clockFile?: string) =>
  bots.serve(
    (token) => ({
      settings: { ...defaultSettings(), burstMs: 0 },
      telegram: {
        botToken: token,
        apiRoot: tg.url,
        limits: { maxConcurrent: 8, perChatPerMinute: 60, pacing: PACING },
      },
    }),
    clockFile ? { clockFile } : {},
  );

/** Everything the model was handed for the turn whose user message holds `words`. */
const callFor = (words: string) => {
  const call = provider.requests.findLast((r) =>
    String(r.body.messages.findLast((m: { role: string }) => m.role === 'user')?.content).endsWith(words),
  );
  assert.ok(call, `a model call for "${words}"`);
  return JSON.stringify(call.body.messages);
};

test('/reset in a forum topic starts that topic anew; the other topics and the General topic keep theirs', () =>
  closing(assistant(), async (s) => {
    const forum = { id: -1001262 };
    const ann = { id: 62, first_name: 'Ann' };
    tg.setAdmin(forum.id, ann.id);
    const at = `@${s.username}`;
    /** Ann's `text` in `topic` (undefined: the General topic). */
    const send = (topic: number | undefined, text: string) =>
      topic === undefined
        ? tg.groupSends(s.token, { id: forum.id }, ann, text)
        : tg.topicSends(s.token, forum, topic, ann, text);
    /** Ann writes in `topic` and waits for the answer there. */
    const say = async (topic: number | undefined, words: string) => {
      send(topic, `${at} ${words}`);
      const got = await tg.waitForSent((m) => m.chat_id === forum.id && m.text.includes(words));
      assert.equal(got.message_thread_id, topic, `"${words}" is answered where it was asked`);
    };
    const reset = async (topic: number | undefined) => {
      const before = tg.sentTo(forum.id).length;
      send(topic, '/reset');
      await waitUntil(() => tg.sentTo(forum.id).length > before, 'the /reset answer');
      const answer = tg.sentTo(forum.id).at(-1)!;
      assert.equal(answer.text, en.reset);
      assert.equal(answer.message_thread_id, topic, 'told in the topic it was asked in');
    };
    /** Whether the model, asked `words` in `topic`, was given `earlier` from the conversation there. */
    const recalls = async (topic: number | undefined, words: string, earlier: string) => {
      await say(topic, words);
      return callFor(words).includes(earlier);
    };
    const trips = tg.createTopic(s.token, forum, ann, 'Trips');
    const recipes = tg.createTopic(s.token, forum, ann, 'Recipes');
    await say(trips, 'plan Lisbon in May');
    await say(recipes, 'a soup for tonight');
    await say(undefined, 'hello all');

    await reset(trips);
    assert.ok(
      await recalls(recipes, 'and a dessert?', 'soup'),
      "the recipes topic keeps its history after the trips' /reset",
    );
    assert.ok(!(await recalls(trips, 'and in June?', 'Lisbon')), 'the trips topic starts anew');
    assert.ok(
      await recalls(undefined, 'still there?', 'hello all'),
      "the General topic keeps its history after a topic's /reset",
    );

    // The General topic's /reset is the chat's, as before topics: it starts the General topic anew,
    // and no topic's conversation with it.
    await reset(undefined);
    assert.ok(!(await recalls(undefined, 'fresh start', 'hello all')), 'the General topic starts anew');
    assert.ok(
      await recalls(recipes, 'and a drink?', 'dessert'),
      "a topic keeps its history after the General topic's /reset",
    );
    assert.ok(await recalls(trips, 'and in July?', 'June'), 'so does a topic that had a /reset of its own');
  }));

test("a topic's conversation stored under the chat's epoch (before topics had their own) is still its own", () => {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-topics-')));
  try {
    const forum = -1001263;
    // What the previous version left: the chat's epoch, one /reset in, and a topic's history under it.
    store.newChatEpoch('a1', forum);
    store.append('a1', telegramSession(forum, 1, 7), [{ role: 'user', content: 'plan Lisbon' }], 10_000);
    assert.equal(store.chatEpoch('a1', forum), 1, 'the chat keeps its epoch');
    assert.equal(store.chatEpoch('a1', forum, 7), 1, "the topic reads the chat's epoch");
    assert.equal(store.load('a1', telegramSession(forum, store.chatEpoch('a1', forum, 7), 7)).length, 1);
    store.newChatEpoch('a1', forum, 7);
    assert.equal(store.chatEpoch('a1', forum, 7), 2, "the topic's /reset moves past the chat's epoch");
    assert.equal(store.chatEpoch('a1', forum), 1, 'and not the chat');
  } finally {
    store.close();
  }
});

test("a moved assistant's topics keep their own conversations: a topic's /reset moves with it, and is purged", () => {
  const from = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-topics-')));
  const to = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-topics-')));
  try {
    const forum = -1001264;
    from.append('a1', telegramSession(forum, 0, 7), [{ role: 'user', content: 'before the reset' }], 10_000);
    from.newChatEpoch('a1', forum, 7);
    from.append('a1', telegramSession(forum, 1, 7), [{ role: 'user', content: 'after the reset' }], 10_000);
    assert.equal(new TransferRepo(to.db).import('a1', new TransferRepo(from.db).export('a1')), true);
    const topic = to.load('a1', telegramSession(forum, to.chatEpoch('a1', forum, 7), 7));
    assert.deepEqual(
      topic.map((m) => m.content),
      ['after the reset'],
      'the topic is in the conversation it had, not the one it reset',
    );
    // The old host's copy is purged once the new one has it: the topic's epoch goes with the rest.
    from.purge('a1');
    assert.equal(from.chatEpoch('a1', forum, 7), 0);
  } finally {
    from.close();
    to.close();
  }
});

test('a reminder and a scheduled task asked for in a forum topic arrive in that topic; /reminders there lists them', async () => {
  const clock = hostClock();
  await closing(assistant(clock.file), async (s) => {
    const forum = { id: -1001265 };
    const ann = { id: 65, first_name: 'Ann' };
    const at = `@${s.username}`;
    const HOUR = 3_600_000;
    const garden = tg.createTopic(s.token, forum, ann, 'Garden');
    const due = clock.now() + HOUR;
    provider.queue.push({
      toolCalls: [
        { name: 'schedule_message', arguments: { text: 'water the plants', at: new Date(due).toISOString() } },
        {
          name: 'schedule_message',
          arguments: { text: 'how are the tomatoes?', task: true, at: new Date(due + HOUR).toISOString() },
        },
      ],
    });
    provider.queue.push({ content: 'Both set.' });
    tg.topicSends(s.token, forum, garden, ann, `${at} remind me to water the plants, and ask about the tomatoes`);
    const set = await tg.waitForSent((m) => m.chat_id === forum.id && m.text === 'Both set.');
    assert.equal(set.message_thread_id, garden);

    tg.topicSends(s.token, forum, garden, ann, '/reminders');
    const listed = await tg.waitForSent((m) => m.chat_id === forum.id && m.text.startsWith('Your scheduled messages'));
    assert.equal(listed.message_thread_id, garden, 'listed in the topic');
    assert.match(listed.text, /water the plants[\s\S]*how are the tomatoes\?/);

    await clock.moveTo(due, s.logs);
    const reminded = await tg.waitForSent((m) => m.chat_id === forum.id && m.text === '⏰ water the plants');
    assert.equal(reminded.message_thread_id, garden, 'the reminder arrives in the topic it was asked for in');

    // The task's turn is the topic's conversation, and its answer goes there too.
    await clock.moveTo(due + HOUR, s.logs);
    // Not the /reminders list above, which names the task too: the task's own answer.
    const answered = await tg.waitForSent(
      (m) =>
        m.chat_id === forum.id &&
        m.text.includes('how are the tomatoes?') &&
        !m.text.startsWith('Your scheduled messages'),
    );
    assert.equal(answered.message_thread_id, garden, "the task's answer arrives in the topic");
    assert.ok(callFor('how are the tomatoes?').includes('water the plants'), "the task's turn has the topic's history");

    // A reminder stored before schedules kept the topic ("telegram:<chat>") still arrives, in the
    // chat as a whole; one whose topic was deleted since arrives there too rather than nowhere.
    const schedules = userData(s.store).schedules;
    const row = (id: string, chat: string, text: string) =>
      schedules.add({
        id,
        agent: 'test-agent',
        user: `tg:${ann.id}`,
        chat,
        text,
        task: false,
        at: null,
        cron: null,
        timezone: null,
        nextAt: clock.now() + HOUR,
      });
    row('0a0a0a0a', `telegram:${forum.id}`, 'an old reminder');
    row('0b0b0b0b', `telegram:${forum.id}:999999`, 'a reminder of a deleted topic');
    await clock.moveTo(clock.now() + HOUR, s.logs);
    const old = await tg.waitForSent((m) => m.chat_id === forum.id && m.text === '⏰ an old reminder');
    assert.equal(old.message_thread_id, undefined);
    const orphan = await tg.waitForSent((m) => m.text === '⏰ a reminder of a deleted topic');
    assert.equal(orphan.message_thread_id, undefined);
  });
});
