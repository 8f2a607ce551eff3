// The Telegram channel: long polling with grammY against TELEGRAM_API_ROOT. The update offset is
// saved before an update is handled, so a restart never answers a message twice (a crash in the
// middle of a reply loses that reply instead). One session per chat; /reset starts a new one.
import { Bot, GrammyError, HttpError, type Context } from 'grammy';
import type { Update } from 'grammy/types';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { telegramSession, type SessionStore } from '../sessions/store.js';
import { splitMessage } from './split-message.js';
import { LongPoll } from './long-poll.js';
import { ProviderError } from '../model/provider.js';
import type { InboundTurn } from '../agent.js';
import type { Transcriber } from '../model/transcriber.js';
import { MediaRefusal, mediaTurn, TelegramFiles } from './telegram-media.js';

export type TelegramState = 'connecting' | 'connected' | 'failed' | 'stopped';

export interface TelegramOptions {
  agent: string;
  botToken: string;
  apiRoot?: string;
  store: SessionStore;
  log: Logger;
  /** Answers one user message in the given session. */
  reply(sessionId: string, inbound: string | InboundTurn, signal: AbortSignal): Promise<string>;
  /** What the model reads besides text (DESIGN §7.3); without it media messages get a sentence. */
  media?: { vision: boolean; transcriber: Transcriber | undefined };
  limits?: TelegramLimits;
}

export interface TelegramLimits {
  /** Updates of this bot handled at once; polling waits for a free slot before it fetches more. */
  maxConcurrent: number;
  /** Messages one chat may send per minute before it is told to slow down and ignored. */
  perChatPerMinute: number;
}

export const DEFAULT_TELEGRAM_LIMITS: TelegramLimits = { maxConcurrent: 8, perChatPerMinute: 20 };
export const SLOW_DOWN_SENTENCE = 'You are sending messages faster than I can answer. Please wait a minute.';

const HELP = 'Send me a message and I will answer.\n\n/reset starts a new conversation\n/help shows this message';
const POLL_TIMEOUT_S = 25;
/** A Telegram user is not the one who pays: a plain sentence, no codes or amounts. */
export const CREDITS_SENTENCE =
  'I have used up my message allowance for this month, so I cannot answer right now. Please try again after it renews.';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/** A network failure of the long poll, in grammY's words (undici's errors never carry the URL). */
const describe = (err: unknown) =>
  `Network request for 'getUpdates' failed! (${(err as Error).message ?? String(err)})`;

export class TelegramChannel {
  state: TelegramState = 'connecting';
  error: string | undefined;
  username: string | undefined;
  private readonly bot: Bot;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly inflight = new Set<Promise<void>>();
  private readonly limits: TelegramLimits;
  private readonly perChat: RateLimiterMemory;
  /** The API root grammY resolved (its default when none is configured), for the long poll. */
  private apiRoot: string | undefined;
  private poll: LongPoll | undefined;

  constructor(private readonly o: TelegramOptions) {
    this.limits = o.limits ?? DEFAULT_TELEGRAM_LIMITS;
    this.perChat = new RateLimiterMemory({ points: this.limits.perChatPerMinute, duration: 60 });
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
    this.bot.command('start', (ctx) => ctx.reply(`Hello! ${HELP}`));
    this.bot.command('help', (ctx) => ctx.reply(HELP));
    this.bot.command('reset', (ctx) => {
      this.o.store.newChatEpoch(this.o.agent, ctx.chat.id);
      return ctx.reply('Started a new conversation.');
    });
    this.bot.on('message:text', (ctx) => this.answer(ctx, async () => ({ text: ctx.message.text })));
    this.bot.on(['message:photo', 'message:voice', 'message:audio', 'message:document'], (ctx) =>
      this.answer(ctx, () => this.mediaTurn(ctx)),
    );
    this.bot.on('message', (ctx) => this.answer(ctx, () => this.mediaTurn(ctx)));
  }

  start() {
    this.loop ??= this.run();
  }

  /** Ends polling at once: the open long poll is aborted, not waited out. */
  async stop() {
    this.abort.abort();
    this.state = 'stopped';
    await this.loop;
    await this.poll?.close();
    await Promise.allSettled([...this.inflight]);
    await this.files?.close();
  }

  /** One chat flooding cannot take every slot nor the owner's model budget: past its rate, one notice. */
  private async admitted(ctx: Context): Promise<boolean> {
    try {
      await this.perChat.consume(String(ctx.chat!.id));
      return true;
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      if (res.consumedPoints === this.limits.perChatPerMinute + 1) await ctx.reply(SLOW_DOWN_SENTENCE).catch(() => {});
      return false;
    }
  }

  private files: TelegramFiles | undefined;

  /** A photo, voice note, audio file or document as the user's turn (channels/telegram-media.ts). */
  private mediaTurn(ctx: Context): Promise<InboundTurn> {
    this.files ??= new TelegramFiles(this.apiRoot!, this.o.botToken);
    return mediaTurn(ctx.message!, {
      vision: this.o.media?.vision ?? false,
      transcriber: this.o.media?.transcriber,
      getFile: (fileId) => ctx.api.getFile(fileId, this.abort.signal as never),
      files: this.files,
      signal: this.abort.signal,
    });
  }

  private async answer(ctx: Context, inbound: () => Promise<InboundTurn>) {
    if (!(await this.admitted(ctx))) return;
    const chatId = ctx.chat!.id;
    const session = telegramSession(chatId, this.o.store.chatEpoch(this.o.agent, chatId));
    const typing = () => ctx.replyWithChatAction('typing').catch(() => {});
    void typing();
    const timer = setInterval(typing, 4500);
    try {
      let turn: InboundTurn;
      try {
        turn = await inbound();
      } catch (err) {
        // A file Berth cannot read: one sentence, no model call, nothing stored.
        if (!(err instanceof MediaRefusal)) throw err;
        await ctx.reply(err.sentence);
        return;
      }
      if (turn.notice) await ctx.reply(turn.notice);
      const text = await this.o.reply(session, turn, this.abort.signal);
      for (const part of splitMessage(text || '…')) await ctx.reply(part);
    } catch (err) {
      if (this.abort.signal.aborted) return;
      this.o.log.warn({ agent: this.o.agent, err: (err as Error).message }, 'telegram reply failed');
      await ctx
        .reply(
          err instanceof ProviderError && err.kind === 'credits'
            ? CREDITS_SENTENCE
            : 'Sorry, I could not answer just now. Please try again in a moment.',
        )
        .catch(() => {});
    } finally {
      clearInterval(timer);
    }
  }

  private async run() {
    const signal = this.abort.signal;
    let backoff = 1000;
    // getMe first: a token Telegram rejects is final, anything else is worth retrying.
    while (!signal.aborted) {
      try {
        // Not bot.init(): it retries 5xx answers forever and would hide why we are not ready.
        this.bot.botInfo = await this.bot.api.getMe(signal as never);
        this.username = this.bot.botInfo.username;
        break;
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof GrammyError && (err.error_code === 401 || err.error_code === 404)) {
          this.fail(
            `Telegram rejected the bot token (${err.error_code} ${err.description}). Check the token with @BotFather and update the deployment.`,
          );
          return;
        }
        this.error = `Cannot reach Telegram yet: ${(err as Error).message}`;
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
    if (signal.aborted) return;
    this.state = 'connected';
    this.error = undefined;
    this.o.log.info({ agent: this.o.agent, bot: this.username }, 'telegram connected');
    let offset = this.o.store.telegramOffset(this.o.agent);
    this.poll ??= new LongPoll(this.apiRoot!, this.o.botToken, POLL_TIMEOUT_S);
    const stopped = new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    backoff = 1000;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        updates = await this.poll.getUpdates(offset, signal);
        backoff = 1000;
        if (this.state !== 'connected') {
          this.state = 'connected';
          this.error = undefined;
        }
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof GrammyError && err.error_code === 401) {
          this.fail(
            `Telegram rejected the bot token (401 ${err.description}). Check the token with @BotFather and update the deployment.`,
          );
          return;
        }
        if (err instanceof GrammyError && err.error_code === 409) {
          // A webhook is set or another poller runs with this token.
          await this.bot.api.deleteWebhook().catch(() => {});
        }
        // A 429 says how long to wait: that long, instead of the backoff.
        const retryAfter = err instanceof GrammyError ? err.parameters.retry_after : undefined;
        this.error = `Telegram polling failed: ${err instanceof HttpError || err instanceof GrammyError ? err.message : describe(err)}`;
        this.o.log.warn({ agent: this.o.agent, err: this.error }, 'telegram polling error');
        await sleep(retryAfter !== undefined ? retryAfter * 1000 : backoff, signal);
        backoff = Math.min(backoff * 2, 30_000);
        continue;
      }
      for (const update of updates) {
        offset = update.update_id + 1;
        this.o.store.setTelegramOffset(this.o.agent, offset);
        const p = this.bot
          .handleUpdate(update)
          .catch((err) =>
            this.o.log.warn({ agent: this.o.agent, err: (err as Error).message }, 'telegram update failed'),
          );
        const tracked = p.finally(() => this.inflight.delete(tracked));
        this.inflight.add(tracked);
        // Bounded work per bot: unfetched updates wait at Telegram, not in our memory.
        while (this.inflight.size >= this.limits.maxConcurrent && !signal.aborted)
          await Promise.race([...this.inflight, stopped]);
      }
    }
  }

  private fail(reason: string) {
    this.state = 'failed';
    this.error = reason;
    this.o.log.warn({ agent: this.o.agent, reason }, 'telegram failed');
  }
}
