// The Telegram channel: the only place that imports grammY, loaded lazily with the first
// assistant that has a bot. Long polling (polling.ts) against TELEGRAM_API_ROOT; the update offset
// is saved before an update is handled, so a restart never answers a message twice (a crash in the
// middle of a reply loses that reply instead). One session per chat; /reset starts a new one.
// Updates pass a list of one-concern middleware (middleware/), then reply.ts answers.
import { Bot, type Context } from 'grammy';
import type { Logger } from 'pino';
import type { AssistantSettings } from '@berth/contracts/settings';
import type { TurnEvent } from '../../core/events.js';
import type { InboundMessage } from '../../core/inbound.js';
import type { Channel, ChannelHealth, ChannelState } from '../channel.js';
import { access } from './middleware/access.js';
import { commands } from './middleware/commands.js';
import type { AccessStore } from '../../storage/access.js';
import { rateLimit } from './middleware/rate-limit.js';
import { toInbound } from './middleware/to-inbound.js';
import { POLL_TIMEOUT_S, Polling, sleep } from './polling.js';
import { reply } from './reply.js';
import { en, textsFor } from './texts/index.js';

export type TelegramState = ChannelState;

/** What the channel keeps between restarts (the update offset, each chat's conversation epoch). */
export interface TelegramChannelState {
  telegramOffset(agent: string): number;
  setTelegramOffset(agent: string, offset: number): void;
  chatEpoch(agent: string, chatId: number): number;
  newChatEpoch(agent: string, chatId: number): void;
}

export interface TelegramOptions {
  agent: string;
  botToken: string;
  apiRoot?: string;
  state: TelegramChannelState;
  log: Logger;
  respond(inbound: InboundMessage, signal: AbortSignal): AsyncIterable<TurnEvent>;
  /** The assistant's settings now (they may change while the bot runs). */
  settings(): AssistantSettings;
  /** Pairing codes and daily counts (settings.access). */
  access: AccessStore;
  limits?: TelegramLimits;
}

export interface TelegramLimits {
  /** Updates of this bot handled at once; polling waits for a free slot before it fetches more. */
  maxConcurrent: number;
  /** Messages one chat may send per minute before it is told to slow down and ignored. */
  perChatPerMinute: number;
}

export const DEFAULT_TELEGRAM_LIMITS: TelegramLimits = { maxConcurrent: 8, perChatPerMinute: 20 };
export const SLOW_DOWN_SENTENCE = en.slowDown;
export const CREDITS_SENTENCE = en.credits;

export class TelegramChannel implements Channel {
  private readonly bot: Bot;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly polling: Polling;
  /** The API root grammY resolved (its default when none is configured), for the long poll. */
  private apiRoot: string | undefined;

  constructor(private readonly o: TelegramOptions) {
    const limits = o.limits ?? DEFAULT_TELEGRAM_LIMITS;
    this.bot = new Bot(o.botToken, {
      client: {
        ...(o.apiRoot ? { apiRoot: o.apiRoot } : {}),
        timeoutSeconds: POLL_TIMEOUT_S + 15,
        // grammY's own URL scheme; it also tells the long poll which root grammY resolved.
        buildUrl: (root, token, method) => {
          this.apiRoot = root;
          return `${root}/bot${token}/${method}`;
        },
      },
    });
    // Telegram's 429 says how long to wait; wait that long and try again (a few times).
    this.bot.api.config.use(async (prev, method, payload, signal) => {
      for (let attempt = 0; ; attempt++) {
        const res = await prev(method, payload, signal);
        const retryAfter = !res.ok && res.error_code === 429 ? res.parameters?.retry_after : undefined;
        if (retryAfter === undefined || attempt >= 3 || this.abort.signal.aborted) return res;
        this.o.log.warn({ agent: o.agent, method, retryAfter }, 'telegram rate limit; retrying');
        await sleep(retryAfter * 1000, this.abort.signal);
      }
    });
    this.polling = new Polling({
      agent: o.agent,
      bot: this.bot,
      botToken: o.botToken,
      apiRoot: () => this.apiRoot!,
      offsets: o.state,
      log: o.log,
      maxConcurrent: limits.maxConcurrent,
      signal: this.abort.signal,
    });
    const texts = (ctx: Context) => textsFor(this.o.settings().language, ctx.from?.language_code);
    // Access first: a refused user reaches neither a command nor the model.
    this.bot.use(access({ agent: o.agent, store: o.access, settings: o.settings, texts }));
    this.bot.use(
      commands({
        texts,
        welcome: () => this.o.settings().welcomeMessage,
        reset: (chatId) => this.o.state.newChatEpoch(this.o.agent, chatId),
      }),
    );
    this.bot.on('message:text', rateLimit(limits.perChatPerMinute, texts), (ctx) => {
      const epoch = this.o.state.chatEpoch(this.o.agent, ctx.chat.id);
      const deps = { agent: o.agent, log: o.log, respond: o.respond, signal: this.abort.signal };
      return reply(deps, ctx, toInbound(ctx, epoch, ctx.message.text), texts(ctx));
    });
    this.bot.on('message', (ctx) => ctx.reply(texts(ctx).textOnly));
  }

  get state(): ChannelState {
    return this.polling.state;
  }
  get error(): string | undefined {
    return this.polling.error;
  }
  get username(): string | undefined {
    return this.polling.username;
  }

  health(): ChannelHealth {
    return { state: this.polling.state, error: this.polling.error };
  }

  start() {
    this.loop ??= this.polling.run();
  }

  /** Ends polling at once: the open long poll is aborted, not waited out. */
  async stop() {
    this.abort.abort();
    this.polling.state = 'stopped';
    await this.loop;
    await this.polling.close();
  }
}
