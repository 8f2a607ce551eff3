// The Telegram channel as the registry (channels/registry.ts) loads it: the runtime's config and
// context in, a Channel out. Loading this module loads grammY.
import type { ChannelConfig, ChannelContext } from '../channel.js';
import { TelegramChannel, type TelegramLimits } from './bot.js';
import type { LongPollTiming } from './polling.js';
import type { TelegramWebhook } from './webhook.js';

/** An assistant's Telegram bot: its token and how this host runs it. */
export interface TelegramConfig extends ChannelConfig {
  readonly type: 'telegram';
  botToken: string;
  apiRoot?: string;
  limits?: TelegramLimits;
  /** `false`: no previews while an answer is written (TELEGRAM_STREAMING=false). */
  stream?: boolean;
  /** The long poll's timing (TELEGRAM_POLL_TIMEOUT_SECONDS; tests shorten it). */
  longPoll?: Partial<LongPollTiming>;
  /** How long a user's messages are gathered when the owner set no settings.burstMs (TELEGRAM_BURST_MS). */
  burstMs?: number;
  /** Webhook mode (TELEGRAM_DELIVERY=webhook): where Telegram POSTs, and its secret_token. */
  webhook?: TelegramWebhook;
}

const isTelegram = (c: ChannelConfig): c is TelegramConfig =>
  c.type === 'telegram' && typeof (c as { botToken?: unknown }).botToken === 'string';

export function createChannel(config: ChannelConfig, ctx: ChannelContext): TelegramChannel {
  if (!isTelegram(config)) throw new Error(`not a Telegram channel's config (type "${config.type}")`);
  return new TelegramChannel({
    agent: ctx.agent,
    botToken: config.botToken,
    apiRoot: config.apiRoot,
    state: ctx.state,
    log: ctx.log,
    respond: ctx.respond,
    settings: ctx.settings,
    access: ctx.access,
    limits: config.limits,
    userData: ctx.userData,
    wakeScheduler: ctx.wakeScheduler,
    media: ctx.media,
    stream: config.stream !== false,
    longPoll: config.longPoll,
    ...(config.burstMs !== undefined ? { defaultBurstMs: config.burstMs } : {}),
    ...(config.webhook ? { webhook: config.webhook } : {}),
    ...(ctx.decidePairing ? { decidePairing: (code, decision) => ctx.decidePairing!(code, decision) } : {}),
  });
}
