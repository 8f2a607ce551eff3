// Telegram as its users see it (DESIGN §7.2): formatted answers, streamed previews, manners in
// groups, the menu and Berth's own sentences in the user's language, pacing and the 409 report.
// Against the loopback Bot API (FakeTelegram) and model (FakeModelProvider), through grammY.
import { test } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { defaultSettings, type AssistantSettings } from '@berth/contracts/settings';
import { closing, startServe } from './helpers/serve.js';
import { CONFLICT_REASON } from '../src/channels/telegram/polling.js';
import { fakeTelegramBed, waitUntil } from './helpers/bed.js';
import { ownBots } from './helpers/own-bots.js';

const { tg, provider } = fakeTelegramBed();
const bots = ownBots({ tg, provider }, { firstId: 7300000001, tag: 'telegramChatTestToken', usernamePrefix: 'berth' });

const waitFor = waitUntil;

/** An assistant with its own bot (so tests do not share chats, menus or pollers). */
const assistant = (settings: Partial<AssistantSettings> = {}, username?: string) =>
  bots.serve({ settings: { ...defaultSettings(), ...settings } }, { username });

test('private chat: the answer streams as drafts, then arrives as one formatted message', () =>
  closing(assistant(), async (s) => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    provider.queue.push({ content: `**Plan** for \`x<y\`:\n\n- ${words}`, chunkDelayMs: 60 });
    tg.userSends(s.token, 801, { text: 'plan please' });
    const final = await tg.waitForSent((m) => m.chat_id === 801);
    const drafts = tg.drafts.filter((d) => d.chat_id === 801);
    assert.ok(drafts.length >= 2, `drafts while the answer was written: ${drafts.length}`);
    assert.ok(drafts[0]!.text.length < final.text.length, 'the first draft shows part of the answer');
    assert.ok(
      drafts.every((d) => d.html !== undefined),
      'drafts are formatted too',
    );
    assert.equal(final.parse_mode, 'HTML');
    assert.equal(final.html, `<b>Plan</b> for <code>x&lt;y</code>:\n\n• ${words}`);
    assert.equal(final.text, `Plan for x<y:\n\n• ${words}`);
    assert.equal(tg.sentTo(801).length, 1, 'one persistent message, no duplicates');
  }));

// DESIGN §9.4: an answer that renders to nothing (here an empty code block) used to send no
// message at all; it arrives as the model's own text.
test('an answer of only an empty code block still arrives, as the model wrote it', () =>
  closing(assistant(), async (s) => {
    provider.queue.push({ content: '```js\n```' });
    tg.userSends(s.token, 809, { text: 'show me the code' });
    const final = await tg.waitForSent((m) => m.chat_id === 809);
    assert.equal(final.text, '```js\n```');
    assert.equal(tg.sentTo(809).length, 1);
  }));

test('a running tool shows as a line in the draft', () =>
  closing(assistant(), async (s) => {
    provider.queue.push({ toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] });
    provider.queue.push({ content: 'It is 42.', delayMs: 1500 });
    tg.userSends(s.token, 802, { text: 'what is 6*7?' });
    await tg.waitForSent((m) => m.chat_id === 802);
    assert.ok(
      tg.drafts.some((d) => d.chat_id === 802 && d.text.includes('🧮 Calculating 6*7…')),
      `drafts: ${JSON.stringify(tg.drafts.filter((d) => d.chat_id === 802).map((d) => d.text))}`,
    );
    assert.equal(tg.sentTo(802).at(-1)!.text, 'It is 42.');
  }));

test('where Telegram refuses drafts, one message is edited instead and ends as the answer', async () => {
  const s = await assistant();
  tg.refuseDrafts = true;
  try {
    const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    provider.queue.push({ content: long, chunkDelayMs: 60 });
    tg.userSends(s.token, 803, { text: 'go' });
    await waitFor(() => tg.sentTo(803).some((m) => m.text === long), 'the answer');
    assert.equal(tg.sentTo(803).length, 1, 'the preview message became the answer');
    assert.ok(
      tg.edits.some((e) => e.chat_id === 803),
      'it was edited',
    );
  } finally {
    tg.refuseDrafts = false;
    await s.close(true);
  }
});

test('a part Telegram cannot parse is sent again as plain text: no answer is lost', async () => {
  const s = await assistant();
  try {
    provider.queue.push({ content: 'This is **important** & true.' });
    tg.refuseHtml = 1;
    tg.userSends(s.token, 804, { text: 'hi' });
    const m = await tg.waitForSent((x) => x.chat_id === 804);
    assert.equal(m.text, 'This is important & true.');
    assert.equal(m.parse_mode, undefined, 'the resend is plain text');
    assert.ok(tg.refused.some((r) => r.chat_id === 804 && /can't parse entities/.test(r.description)));
  } finally {
    tg.refuseHtml = 0;
    await s.close(true);
  }
});

test('groups: only a mention, a reply to the bot or an addressed command is answered; others make no model call', () =>
  closing(assistant({}, 'berthgroup_bot'), async (s) => {
    const group = { id: -100500 };
    const alice = { id: 41, first_name: 'Alice' };
    const calls = provider.requests.length;
    tg.groupSends(s.token, group, alice, 'anyone up for lunch?');
    tg.groupSends(s.token, group, alice, 'ask @someother_bot instead');
    tg.groupSends(s.token, group, alice, '/help@someother_bot');
    // The next addressed message is answered; the three before it, handled first, were not.
    const { messageId } = tg.groupSends(s.token, group, alice, '@berthgroup_bot what is the capital of France?');
    const answer = await tg.waitForSent((m) => m.chat_id === group.id);
    assert.equal(provider.requests.length, calls + 1, 'one model call, for the mention only');
    const sent = provider.requests.at(-1)!.body.messages.at(-1);
    assert.deepEqual(sent, { role: 'user', content: 'Alice: what is the capital of France?' });
    assert.equal((answer.reply_parameters as { message_id: number }).message_id, messageId);
    assert.equal(tg.sentTo(group.id).length, 1);

    // A reply to the bot's message is addressed to it, and Bob is named as Bob.
    const bot = tg.sentTo(group.id)[0]!.message_id!;
    tg.groupSends(s.token, group, { id: 42, first_name: 'Bob' }, 'and of Spain?', { replyTo: bot });
    await waitFor(() => tg.sentTo(group.id).length === 2, 'the answer to the reply');
    assert.equal(provider.requests.at(-1)!.body.messages.at(-1).content, 'Bob: and of Spain?');
    assert.equal(provider.requests.length, calls + 2);
  }));

test('groups: the preview is one message edited at most once a second', () =>
  closing(assistant({}, 'berthedits_bot'), async (s) => {
    const group = { id: -100501 };
    const long = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
    provider.queue.push({ content: long, chunkDelayMs: 50 });
    tg.groupSends(s.token, group, { id: 43, first_name: 'Carol' }, '@berthedits_bot tell me');
    await waitFor(() => tg.sentTo(group.id).some((m) => m.text === long), 'the answer');
    assert.equal(tg.sentTo(group.id).length, 1, 'one message in the group');
    const edits = tg.edits.filter((e) => e.chat_id === group.id);
    assert.ok(edits.length >= 1);
    for (let i = 1; i < edits.length; i++)
      assert.ok(edits[i]!.at - edits[i - 1]!.at >= 950, `edits ${edits[i]!.at - edits[i - 1]!.at} ms apart`);
    assert.equal(tg.drafts.filter((d) => d.chat_id === group.id).length, 0, 'no drafts in groups');
  }));

test('groups: settings.groups "off" answers nothing, "all" everything', async () => {
  const off = await assistant({ groups: 'off' }, 'berthoff_bot');
  const all = await assistant({ groups: 'all' }, 'berthall_bot');
  try {
    const calls = provider.requests.length;
    tg.groupSends(off.token, { id: -100502 }, { id: 44, first_name: 'Dan' }, '@berthoff_bot hello?');
    tg.groupSends(all.token, { id: -100503 }, { id: 44, first_name: 'Dan' }, 'lunch?');
    await tg.waitForSent((m) => m.chat_id === -100503);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(tg.sentTo(-100502).length, 0);
    assert.equal(provider.requests.length, calls + 1);
  } finally {
    await off.close(true);
    await all.close(true);
  }
});

test('groups: only administrators may /reset', () =>
  closing(assistant({}, 'berthreset_bot'), async (s) => {
    const group = { id: -100504 };
    tg.setAdmin(group.id, 50);
    tg.groupSends(s.token, group, { id: 51, first_name: 'Eve' }, '/reset@berthreset_bot');
    const refused = await tg.waitForSent((m) => m.chat_id === group.id);
    assert.match(refused.text, /Only an administrator/);
    assert.equal(s.store.chatEpoch('test-agent', group.id), 0, 'the conversation is kept');
    tg.groupSends(s.token, group, { id: 50, first_name: 'Ann' }, '/reset');
    await waitFor(() => tg.sentTo(group.id).length === 2, 'the admin is answered');
    assert.equal(tg.sentTo(group.id)[1]!.text, 'Started a new conversation.');
    assert.equal(s.store.chatEpoch('test-agent', group.id), 1);
  }));

test('the menu is set once per bot: a restart with the same menu makes no call, turning reminders off does', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-menu-'));
  const token = bots.token('menu');
  tg.addBot(token, 'berth_menu_bot');
  const start = () =>
    startServe({ provider, telegram: tg, botToken: token, dataDir, config: { settings: defaultSettings() } });
  const answered = async (chat: number) => {
    // An update is handled after onConnected queued the menu, so the menu had its turn by then.
    tg.userSends(token, chat, { text: '/help' });
    await tg.waitForSent((m) => m.chat_id === chat);
  };
  let s = await start();
  try {
    await waitFor(() => s.agent.health().ready, 'the bot connects');
    await waitFor(() => tg.setMyCommandsCalls(token) === 6, 'the menu in six languages');
    // The fake counts a call when it arrives; the agent records the menu once the last answer is
    // back. A stop in between (kill, redeploy) leaves it unrecorded, and the next start sets it again.
    // Each call is recorded as its answer comes (menu-record.ts): the whole menu is six keys. Waiting
    // for the first alone let a stop under load leave the last unrecorded, and the restart set it.
    const recorded = () => s.store.telegramMenu('test-agent');
    const whole = () => recorded()?.split(' ').length === 6;
    await waitFor(whole, 'the menu recorded, all six calls');
    const first = recorded();
    await answered(811);
    await s.close(true);

    s = await start();
    await waitFor(() => s.agent.health().ready, 'the bot connects again');
    await answered(812);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(tg.setMyCommandsCalls(token), 6, 'a restart with the same menu sets nothing');

    s.agent.useSettings({ ...defaultSettings(), tools: { ...defaultSettings().tools, reminders: false } });
    await waitFor(() => tg.setMyCommandsCalls(token) === 12, 'the changed menu is set');
    // A command switched off changes all six calls: the record holds the new six, none of the old.
    await waitFor(() => recorded() !== first && whole(), 'the changed menu recorded, all six calls');
    assert.deepEqual(
      tg.commands(token)!.map((c) => c.command),
      ['start', 'help', 'reset', 'memory', 'forget', 'timezone'],
    );
    assert.deepEqual(
      tg.commands(token, 'de')!.map((c) => c.command),
      ['start', 'help', 'reset', 'memory', 'forget', 'timezone'],
    );
    await s.close(true);

    // The changed menu was recorded too: the next start with those settings sets nothing.
    s = await startServe({
      provider,
      telegram: tg,
      botToken: token,
      dataDir,
      config: { settings: { ...defaultSettings(), tools: { ...defaultSettings().tools, reminders: false } } },
    });
    await waitFor(() => s.agent.health().ready, 'the bot connects a third time');
    await answered(813);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(tg.setMyCommandsCalls(token), 12);
    await s.close(true);

    // Another bot under the same assistant (a new token) is a new bot: its menu is set.
    const other = bots.token('menu2');
    tg.addBot(other, 'berth_menu2_bot');
    s = await startServe({ provider, telegram: tg, botToken: other, dataDir, config: { settings: defaultSettings() } });
    await waitFor(() => tg.setMyCommandsCalls(other) === 6, "the new bot's menu");
  } finally {
    await s.close(true);
  }
});

test('the menu is set at start, with translations; a German user gets German sentences', () =>
  closing(assistant(), async (s) => {
    await waitFor(() => tg.commands(s.token, 'ru') !== undefined, 'the menu in every language');
    assert.deepEqual(
      tg.commands(s.token)!.map((c) => c.command),
      ['start', 'help', 'reset', 'memory', 'forget', 'reminders', 'timezone'],
    );
    assert.equal(tg.commands(s.token, 'de')![2]!.description, 'Ein neues Gespräch beginnen');
    for (const lang of ['es', 'fr', 'pt', 'ru']) assert.ok(tg.commands(s.token, lang), lang);

    const hans = { id: 805, first_name: 'Hans', language_code: 'de' };
    tg.userSends(s.token, 805, { text: '/help', from: hans });
    assert.match((await tg.waitForSent((m) => m.chat_id === 805)).text, /^Schreib mir eine Nachricht/);
    tg.userSends(s.token, 805, { text: '/reset', from: hans });
    await waitFor(() => tg.sentTo(805).length === 2, 'the reset');
    assert.equal(tg.sentTo(805)[1]!.text, 'Ein neues Gespräch hat begonnen.');
    provider.queue.push({ status: 500, error: { message: 'boom' } });
    tg.userSends(s.token, 805, { text: 'hallo', from: hans });
    await waitFor(() => tg.sentTo(805).length === 3, 'the apology');
    assert.match(tg.sentTo(805)[2]!.text, /^Entschuldige/);
    // An unknown language falls back to English.
    tg.userSends(s.token, 806, { text: '/help', from: { language_code: 'xx' } });
    assert.match((await tg.waitForSent((m) => m.chat_id === 806)).text, /^Send me a message/);
  }));

test("settings.language wins over the user's language_code; settings.welcomeMessage answers /start", () =>
  closing(assistant({ language: 'fr', welcomeMessage: 'Welcome aboard the Berth ferry!' }), async (s) => {
    tg.userSends(s.token, 807, { text: '/help', from: { language_code: 'de' } });
    assert.match((await tg.waitForSent((m) => m.chat_id === 807)).text, /^Envoyez-moi un message/);
    tg.userSends(s.token, 807, { text: '/start' });
    await waitFor(() => tg.sentTo(807).length === 2, 'the welcome');
    assert.equal(tg.sentTo(807)[1]!.text, 'Welcome aboard the Berth ferry!');
  }));

test('a welcome Telegram refuses (stored before it was counted as Telegram counts) still answers /start, with the built-in one', async () => {
  // 2,049 emoji: 2,049 code points, 4,098 UTF-16 units; Telegram answers "message is too long".
  await closing(assistant({ welcomeMessage: '😀'.repeat(2049) }), async (s) => {
    tg.userSends(s.token, 871, { text: '/start' });
    const sent = await tg.waitForSent((m) => m.chat_id === 871);
    assert.match(sent.text, /^Hello! Send me a message/);
    assert.equal(tg.refused.filter((r) => r.chat_id === 871).length, 1, "the owner's welcome was tried first");
  });
});

test('a 429 is waited out and the answer resumes from the refused part, none twice', () =>
  closing(assistant(), async (s) => {
    const para = (n: number) => `Part ${n}: ${'lorem ipsum dolor '.repeat(200)}`.trim();
    provider.queue.push({ content: [0, 1, 2].map(para).join('\n\n') });
    tg.userSends(s.token, 808, { text: 'long please' });
    await tg.waitForSent((m) => m.chat_id === 808);
    // The next part is paced a second behind the first: it is the one refused.
    tg.throttle.push({ method: 'sendMessage', retryAfter: 1 });
    await waitFor(() => tg.sentTo(808).length === 3, 'all parts');
    assert.deepEqual(
      tg.sentTo(808).map((m) => m.text.slice(0, 7)),
      ['Part 0:', 'Part 1:', 'Part 2:'],
    );
    assert.equal(tg.throttle.length, 0, 'the 429 was answered');
  }));

test('another program polling the bot (409) is reported in health, without fighting over the bot', async () => {
  const s = await assistant();
  const rival = new AbortController();
  // The other program: polls this token in a loop, as a second bot instance would.
  const other = (async () => {
    while (!rival.signal.aborted) {
      await fetch(`${tg.url}/bot${s.token}/getUpdates`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ timeout: 2 }),
        signal: rival.signal,
      }).catch(() => {});
    }
  })();
  try {
    await waitFor(() => s.agent.health().reason === CONFLICT_REASON, 'the 409 reported');
    const h = s.agent.health();
    assert.match(h.reason!, /Another program is polling this bot/);
    assert.equal(tg.webhookDeletes.get(s.token) ?? 0, 0, 'no deleteWebhook to take the bot back');
    const conflicts = tg.conflicts(s.token);
    await new Promise((r) => setTimeout(r, 3000));
    // Backing off: a fighting poller would end the rival's poll every few milliseconds.
    assert.ok(tg.conflicts(s.token) - conflicts <= 3, `${tg.conflicts(s.token) - conflicts} conflicts in 3 s`);
    rival.abort();
    await other;
    await waitFor(() => s.agent.health().reason === null, 'the report clears once the rival is gone', 90_000);
  } finally {
    rival.abort();
    await s.close(true);
  }
});
