// Who a group message is from (decision 0031, telegram-senders), against the loopback Bot API
// (FakeTelegram) with Telegram's real shapes: a member posting as their channel comes with
// Channel_Bot in `from`, an anonymous administrator with GroupAnonymousBot, the real sender in
// `sender_chat`. Such a sender is gated and remembered as that chat; other bots are never answered;
// in groups, what is not addressed to the bot is ignored before access counts or refuses anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings, type AssistantSettings } from '@berth/contracts/settings';
import { DAILY_LIMIT_SENTENCE } from '../src/channels/telegram/bot.js';
import { fakeTelegramBed, waitUntil } from './helpers/bed.js';
import { ownBots } from './helpers/own-bots.js';
import { closing } from './helpers/serve.js';

const { tg, provider } = fakeTelegramBed();
const bots = ownBots(
  { tg, provider },
  { firstId: 7310000001, tag: 'telegramSendersTestToken', usernamePrefix: 'berthsenders' },
);

const waitFor = waitUntil;

type Access = Partial<AssistantSettings['access']>;

/** An assistant with its own bot and the given access rules. */
async function assistant(access: Access = {}, more: Partial<AssistantSettings> = {}) {
  const base = defaultSettings();
  const settings = (a: Access) => ({ ...base, ...more, access: { ...base.access, ...a } });
  const s = await bots.serve({ settings: settings(access) });
  return { ...s, at: `@${s.username}`, setAccess: (a: Access) => s.agent.useSettings(settings(a)) };
}

const modelCallsWith = (text: string) =>
  provider.requests.filter((r) =>
    r.body.messages.some((m: { content?: unknown }) => typeof m.content === 'string' && m.content.includes(text)),
  ).length;
const systemOf = (body: any): string =>
  body.messages
    .filter((m: any) => m.role === 'system')
    .map((m: any) => String(m.content))
    .join('\n');

const NIGHT_OWLS = { id: -1001234567890, title: 'Night Owls', username: 'nightowls' };
const alice = { id: 41, first_name: 'Alice' };

test('a stranger posting as a channel is held to the daily cap as that channel: 3 of 5 answered, then one sentence', () =>
  closing(assistant({ mode: 'open', perUserDailyReplies: 3 }), async (s) => {
    const group = { id: -1009000000001, title: "A stranger's group" };
    const calls = provider.requests.length;
    for (const n of [1, 2, 3]) {
      tg.groupSendsAs(s.token, group, { channel: NIGHT_OWLS }, `${s.at} post ${n}`);
      await tg.waitForSent((m) => m.chat_id === group.id && m.text.includes(`post ${n}`));
    }
    tg.groupSendsAs(s.token, group, { channel: NIGHT_OWLS }, `${s.at} post 4`);
    await tg.waitForSent((m) => m.chat_id === group.id && m.text === DAILY_LIMIT_SENTENCE);
    tg.groupSendsAs(s.token, group, { channel: NIGHT_OWLS }, `${s.at} post 5`);
    // A person in the same group has their own count, and the model names the channel by its title.
    tg.groupSends(s.token, group, alice, `${s.at} my turn`);
    await tg.waitForSent((m) => m.chat_id === group.id && m.text.includes('Alice: my turn'));
    assert.equal(provider.requests.length, calls + 4, 'three posts of the channel and Alice reached the model');
    assert.equal(modelCallsWith('post 4') + modelCallsWith('post 5'), 0);
    const first = provider.requests.find((r) => r.body.messages.at(-1)?.content?.endsWith('post 1'));
    assert.equal(first?.body.messages.at(-1).content, 'Night Owls: post 1', 'the channel speaks, not "Channel"');
    assert.equal(tg.sentTo(group.id).filter((m) => m.text === DAILY_LIMIT_SENTENCE).length, 1);
  }));

test('allowlist and pairing hold for a channel and for anonymous administrators; approving the chat id lets it in', () =>
  closing(assistant({ mode: 'allowlist', telegramUserIds: [alice.id] }), async (s) => {
    const group = { id: -1009000000002, title: 'Owls and friends' };
    const calls = provider.requests.length;
    tg.groupSendsAs(s.token, group, { channel: NIGHT_OWLS }, `${s.at} let me in`);
    const refused = await tg.waitForSent((m) => m.chat_id === group.id);
    assert.match(refused.text, /only talks to/);

    s.setAccess({ mode: 'pairing', telegramUserIds: [alice.id] });
    tg.groupSendsAs(s.token, group, { channel: NIGHT_OWLS }, `${s.at} pair me`);
    const notice = await tg.waitForSent((m) => m.chat_id === group.id && /\b[A-Z2-9]{8}\b/.test(m.text));
    tg.groupSendsAs(s.token, group, 'anonymous admin', `${s.at} and me`);
    await waitFor(() => s.agent.access.pending('test-agent', Date.now()).length === 2, 'two pending codes');
    assert.equal(provider.requests.length, calls, 'no model call for either');
    const pending = s.agent.access.pending('test-agent', Date.now());
    assert.deepEqual(pending.map((p) => [p.telegramUserId, p.name]).sort(), [
      [NIGHT_OWLS.id, 'Night Owls (channel)'],
      [group.id, 'Owls and friends (anonymous administrators)'],
    ]);
    assert.ok(notice.text.includes(pending.find((p) => p.telegramUserId === NIGHT_OWLS.id)!.code));

    // The owner approves the channel (its chat id joins telegramUserIds): it is answered.
    s.setAccess({ mode: 'pairing', telegramUserIds: [alice.id, NIGHT_OWLS.id] });
    tg.groupSendsAs(s.token, group, { channel: NIGHT_OWLS }, `${s.at} thanks`);
    await tg.waitForSent((m) => m.chat_id === group.id && m.text.includes('Night Owls: thanks'));
  }));

test('another bot is never answered, even mentioning the bot in an open group', () =>
  closing(assistant(), async (s) => {
    const group = { id: -1009000000003 };
    const otherBot = { id: 6100000001, is_bot: true, first_name: 'Chatty', username: 'chatty_bot' };
    const calls = provider.requests.length;
    tg.groupSends(s.token, group, otherBot, `${s.at} say something`);
    tg.groupSends(s.token, group, otherBot, '/help');
    tg.groupSends(s.token, group, alice, `${s.at} hello`);
    await tg.waitForSent((m) => m.chat_id === group.id && m.text.includes('Alice: hello'));
    assert.equal(provider.requests.length, calls + 1, 'only Alice reached the model');
    assert.equal(tg.sentTo(group.id).length, 1, 'nothing said to the bot');
  }));

test("anonymous administrators of two groups are two senders: one group's memory and reminders never reach the other", () =>
  closing(assistant(), async (s) => {
    const a = { id: -1009000000004, title: 'Group A' };
    const b = { id: -1009000000005, title: 'Group B' };
    provider.queue.push({ toolCalls: [{ name: 'remember', arguments: { fact: 'Their favourite tea is Assam' } }] });
    provider.queue.push({ content: 'Noted.' });
    tg.groupSendsAs(s.token, a, 'anonymous admin', `${s.at} remember our tea`);
    await tg.waitForSent((m) => m.chat_id === a.id && m.text === 'Noted.');
    const due = new Date(Date.now() + 3_600_000).toISOString();
    provider.queue.push({ toolCalls: [{ name: 'schedule_message', arguments: { text: 'brew the tea', at: due } }] });
    provider.queue.push({ content: 'Scheduled.' });
    tg.groupSendsAs(s.token, a, 'anonymous admin', `${s.at} remind us in an hour`);
    await tg.waitForSent((m) => m.chat_id === a.id && m.text === 'Scheduled.');

    tg.groupSendsAs(s.token, a, 'anonymous admin', '/memory');
    await tg.waitForSent((m) => m.chat_id === a.id && m.text.startsWith('What I remember') && m.text.includes('Assam'));
    tg.groupSendsAs(s.token, a, 'anonymous admin', '/reminders');
    const listed = await tg.waitForSent((m) => m.chat_id === a.id && m.text.startsWith('Your scheduled messages'));
    const id = /\/cancel_([0-9a-f]{8})/.exec(listed.text)![1]!;

    tg.groupSendsAs(s.token, b, 'anonymous admin', '/memory');
    const memoryB = await tg.waitForSent((m) => m.chat_id === b.id);
    assert.equal(memoryB.text, "I don't remember anything about you yet.");
    tg.groupSendsAs(s.token, b, 'anonymous admin', `${s.at} what tea do we like?`);
    await tg.waitForSent((m) => m.chat_id === b.id && m.text.includes('what tea do we like?'));
    assert.ok(!systemOf(provider.requests.at(-1)!.body).includes('Assam'), "group A's fact is not injected in B");
    tg.groupSendsAs(s.token, b, 'anonymous admin', '/reminders');
    await tg.waitForSent((m) => m.chat_id === b.id && m.text === 'You have no scheduled messages.');
    tg.groupSendsAs(s.token, b, 'anonymous admin', `/cancel_${id}`);
    await tg.waitForSent((m) => m.chat_id === b.id && m.text === 'No scheduled message of yours has that id.');
    tg.groupSendsAs(s.token, a, 'anonymous admin', `/cancel_${id}`);
    await tg.waitForSent((m) => m.chat_id === a.id && m.text === 'Cancelled.');

    // A person in group A does not share the administrators' memory either.
    tg.groupSends(s.token, a, alice, '/memory');
    await tg.waitForSent((m) => m.chat_id === a.id && m.text === "I don't remember anything about you yet.");
  }));

test('an anonymous administrator may /reset its group; a member posting as a channel may not', () =>
  closing(assistant(), async (s) => {
    const group = { id: -1009000000009 };
    tg.groupSendsAs(s.token, group, { channel: NIGHT_OWLS }, '/reset');
    const refused = await tg.waitForSent((m) => m.chat_id === group.id);
    assert.match(refused.text, /Only an administrator/);
    assert.equal(s.store.chatEpoch('test-agent', group.id), 0, 'the conversation is kept');
    tg.groupSendsAs(s.token, group, 'anonymous admin', '/reset');
    await tg.waitForSent((m) => m.chat_id === group.id && m.text === 'Started a new conversation.');
    assert.equal(s.store.chatEpoch('test-agent', group.id), 1);
  }));

test("in groups a stranger's chatter gets no reply at all; only a message addressed to the bot gets the pairing code", async () => {
  const s = await assistant({ mode: 'pairing', telegramUserIds: [alice.id] });
  const off = await assistant({ mode: 'pairing', telegramUserIds: [alice.id] }, { groups: 'off' });
  const group = { id: -1009000000006 };
  const offGroup = { id: -1009000000007 };
  const stranger = { id: 77, first_name: 'Stan' };
  try {
    tg.groupSends(s.token, group, stranger, 'anyone for lunch?');
    tg.groupSends(s.token, group, stranger, 'ask @someother_bot then');
    tg.groupSends(s.token, group, stranger, `${s.at} who are you?`);
    await tg.waitForSent((m) => m.chat_id === group.id && /\b[A-Z2-9]{8}\b/.test(m.text));
    tg.groupSends(s.token, group, alice, `${s.at} hi`);
    await tg.waitForSent((m) => m.chat_id === group.id && m.text.includes('Alice: hi'));
    assert.equal(tg.sentTo(group.id).length, 2, 'one code for the addressed message, one answer to Alice');
    assert.equal(s.agent.access.pending('test-agent', Date.now()).length, 1);

    // With groups "off" even a mention is not answered, so a stranger's gets no code either.
    tg.groupSends(off.token, offGroup, stranger, `${off.at} who are you?`);
    tg.groupSends(off.token, offGroup, alice, '/help');
    await tg.waitForSent((m) => m.chat_id === offGroup.id);
    assert.equal(tg.sentTo(offGroup.id).length, 1, 'only the help');
    assert.doesNotMatch(tg.sentTo(offGroup.id)[0]!.text, /\b[A-Z2-9]{8}\b/);
  } finally {
    await s.close(true);
    await off.close(true);
  }
});

test("an allowed user's group chatter does not use up their daily replies", () =>
  closing(assistant({ mode: 'allowlist', telegramUserIds: [alice.id], perUserDailyReplies: 2 }), async (s) => {
    const group = { id: -1009000000008 };
    for (const text of ['morning all', 'lunch at noon?', 'see you there']) tg.groupSends(s.token, group, alice, text);
    for (const n of [1, 2]) {
      tg.groupSends(s.token, group, alice, `${s.at} question ${n}`);
      await tg.waitForSent((m) => m.chat_id === group.id && m.text.includes(`question ${n}`));
    }
    assert.ok(!tg.sentTo(group.id).some((m) => m.text === DAILY_LIMIT_SENTENCE));
    tg.groupSends(s.token, group, alice, `${s.at} question 3`);
    await tg.waitForSent((m) => m.chat_id === group.id && m.text === DAILY_LIMIT_SENTENCE);
    assert.equal(modelCallsWith('question 3'), 0, 'the cap still holds for what is addressed');
  }));
