// The channel seam (issue 58, decision 0033): a channel is a folder under channels/ plus one line
// in channels/registry.ts. A tiny channel registered here, beside Telegram, is started, given new
// settings and stopped by the runtime, receives its users' reminders and tasks through its own
// Outbound, and Telegram's reminders still reach Telegram.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings, type AssistantSettings } from '@berth/contracts/settings';
import type { Channel, ChannelHealth, Outbound, Scheduled } from '../src/channels/channel.js';
import { registerChannel, type ChannelConfig, type ChannelContext } from '../src/channels/registry.js';
import { channelChat, channelSession, channelUser, idIn, scheduledTurn } from '../src/core/inbound.js';
import { userData } from '../src/storage/user-data.js';
import { fakeTelegramBed, waitUntil } from './helpers/bed.js';
import { startServe, withServe } from './helpers/serve.js';

const TOKEN = '7000000001:AAseamseamseamseamseamseamseamseam01';
const { tg, provider } = fakeTelegramBed(TOKEN);

/** A channel as small as the port allows: it records what the runtime asks of it. */
class TinyChannel implements Channel {
  readonly type = 'tiny';
  readonly calls: string[] = [];
  readonly sent: Array<{ chatId: string; text: string }> = [];
  private readonly abort = new AbortController();
  private health_: ChannelHealth = { state: 'connecting', error: undefined };
  private onSend: (() => void) | undefined;

  constructor(readonly ctx: ChannelContext) {}

  /** Resolves once `n` messages went out through this channel's Outbound. */
  sentCount(n: number): Promise<void> {
    if (this.sent.length >= n) return Promise.resolve();
    return new Promise((resolve) => {
      this.onSend = () => this.sent.length >= n && resolve();
    });
  }

  readonly outbound: Outbound = {
    sendText: async (chatId, text) => {
      this.sent.push({ chatId, text });
      this.onSend?.();
      return [this.sent.length];
    },
  };

  readonly scheduled: Scheduled = {
    signal: this.abort.signal,
    ready: () => this.health_.state === 'connected',
    chatOf: (chat) => idIn('tiny', 'chat', chat),
    admit: () => 'ok',
    inbound: (chatId, user, text) =>
      scheduledTurn(
        'tiny',
        { id: chatId, type: 'private' },
        channelSession('tiny', chatId, 0),
        idIn('tiny', 'user', user) ?? user,
        text,
      ),
    refusal: () => 'not today',
  };

  start() {
    this.calls.push('start');
    this.health_ = { state: 'connected', error: undefined };
  }
  async stop() {
    this.calls.push('stop');
    this.abort.abort();
    this.health_ = { state: 'stopped', error: undefined };
  }
  health() {
    return this.health_;
  }
  details() {
    return { account: 'tiny-1' };
  }
  applySettings(settings: AssistantSettings) {
    this.calls.push(`settings:${settings.language}`);
  }
}

let tiny: TinyChannel | undefined;
registerChannel('tiny', async () => ({
  createChannel: (config: ChannelConfig, ctx: ChannelContext) => {
    assert.equal(config.type, 'tiny');
    tiny = new TinyChannel(ctx);
    return tiny;
  },
}));

function due(
  store: Parameters<typeof userData>[0],
  id: string,
  user: string,
  chat: string,
  text: string,
  task = false,
) {
  userData(store).schedules.add({
    id,
    agent: 'test-agent',
    user,
    chat,
    text,
    task,
    at: null,
    cron: null,
    timezone: null,
    nextAt: Date.now(),
  });
}

test('a channel registered beside Telegram is started, given settings, sent reminders through its Outbound and stopped', async () => {
  const s = await startServe({ provider, telegram: tg, botToken: TOKEN, config: { channels: [{ type: 'tiny' }] } });
  let stopped = false;
  try {
    await waitUntil(() => s.agent.health().ready, 'both channels connected');
    assert.ok(tiny, 'the registry made the tiny channel');
    assert.deepEqual(tiny.calls, ['start']);
    const health = s.agent.health();
    assert.equal(health.telegram.username !== null, true, "Telegram's part of the health is as before");
    assert.deepEqual(health.channels?.map((c) => `${c.type} ${c.state}`).sort(), [
      'telegram connected',
      'tiny connected',
    ]);

    // The same user id on both channels is two end users (DESIGN §9.1).
    const tinyUser = channelUser('tiny', '42');
    assert.equal(tinyUser, 'tiny:42');
    assert.equal(channelUser('telegram', '42'), 'tg:42', "Telegram's stored keys are unchanged");
    due(s.store, '0000aaa1', tinyUser, channelChat('tiny', '42'), 'water the plants');
    due(s.store, '0000aaa2', tinyUser, channelChat('tiny', '42'), 'say hello', true);
    due(s.store, '0000aaa3', 'tg:42', channelChat('telegram', '42'), 'call mum');
    s.scheduler.wake();

    await tiny.sentCount(2);
    await waitUntil(() => tg.sentTo(42).length === 1, 'the Telegram reminder');
    await s.scheduler.idle();
    const sent = tiny.sent.map((m) => `${m.chatId} ${m.text}`).sort();
    assert.deepEqual(sent, ['42 You said: say hello', '42 ⏰ water the plants']);
    assert.equal(tg.sentTo(42)[0]!.text, '⏰ call mum', 'Telegram got its own reminder, and only that');
    // The task's turn ran in the tiny channel's conversation, not a Telegram chat's.
    assert.equal(s.store.load('test-agent', channelSession('tiny', '42', 0)).length, 2);

    const settings = { ...defaultSettings(), language: 'de' };
    s.agent.useSettings(settings);
    assert.deepEqual(tiny.calls, ['start', 'settings:de']);

    await s.close(true);
    stopped = true;
    assert.deepEqual(tiny.calls, ['start', 'settings:de', 'stop']);
  } finally {
    if (!stopped) await s.close(true);
  }
});

test("a channel still connecting holds its own reminders back, never Telegram's", async () => {
  let slow: TinyChannel | undefined;
  registerChannel('slow', async () => ({
    createChannel: (_config: ChannelConfig, ctx: ChannelContext) => {
      slow = new TinyChannel(ctx);
      // It never connects: start() is recorded, the state stays "connecting".
      slow.start = () => void slow!.calls.push('start');
      return slow;
    },
  }));
  await withServe({ provider, telegram: tg, botToken: TOKEN, config: { channels: [{ type: 'slow' }] } }, async (s) => {
    await waitUntil(
      () => s.agent.channel('telegram')?.health().state === 'connected' && slow !== undefined,
      'Telegram up',
    );
    // The assistant is as ready as its Telegram bot; the other channel says it is connecting itself.
    assert.equal(s.agent.state, 'connected', "the assistant's state is its Telegram bot's");
    const health = s.agent.health() as { ready: boolean; channels?: Array<{ type: string; state: string }> };
    assert.equal(health.ready, true);
    assert.equal(health.channels?.find((c) => c.type !== 'telegram')?.state, 'connecting');
    due(s.store, '0000bbb1', 'tg:43', channelChat('telegram', '43'), 'feed the cat');
    // The slow channel is a TinyChannel: its chats are "tiny:<id>".
    due(s.store, '0000bbb2', 'slow:43', 'tiny:43', 'held back');
    s.scheduler.wake();
    await waitUntil(() => tg.sentTo(43).length === 1, "Telegram's reminder");
    await s.scheduler.idle();
    assert.equal(tg.sentTo(43)[0]!.text, '⏰ feed the cat');
    assert.deepEqual(slow!.sent, [], 'nothing sent through a channel that is not connected');
    const held = userData(s.store).schedules.get('0000bbb2')!;
    assert.equal(held.status, 'active', 'its reminder waits, unclaimed, for the channel');
  });
});
