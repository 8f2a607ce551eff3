// The Telegram channel: the only place that imports grammY, loaded lazily with the first
// assistant that has a bot. Long polling (polling.ts) against TELEGRAM_API_ROOT; the update offset
// is saved before an update is handled, so a restart never answers a message twice (a crash in the
// middle of a reply loses that reply instead). One session per chat; /reset starts a new one.
// Updates pass a list of one-concern middleware (middleware/), then reply.ts answers.
import { setMaxListeners } from 'node:events';
import { autoRetry } from '@grammyjs/auto-retry';
import { Bot, type Context, type Transformer } from 'grammy';
import type { Update } from 'grammy/types';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import type { AssistantSettings } from '@berth/contracts/settings';
import { providerFailure, type TurnEvent } from '../../core/events.js';
import { idIn, type InboundMessage, scheduledTurn, telegramSession } from '../../core/inbound.js';
import type {
  Channel,
  ChannelHealth,
  ChannelState,
  Outbound,
  Scheduled,
  ScheduledAdmission,
  SendOptions,
} from '../channel.js';
import type { AccessStore, Pairing } from '../../storage/access.js';
import { admitScheduled } from './middleware/access.js';
import { toInbound } from './middleware/to-inbound.js';
import { dailyReply } from './middleware/access.js';
import { chatBudget } from './middleware/rate-limit.js';
import { type BotRoom, enter, textsOf } from './middleware/room.js';
import { botMiddleware } from './middleware/tree.js';
import { TelegramOutbound } from './outbound.js';
import { formatAddress, parseAddress, type TelegramAddress } from './address.js';
import { MenuQueue } from './menu-queue.js';
import { MenuRecord } from './menu-record.js';
import { ownerNotice, type PairingDecision, type PairingOutcome } from './middleware/owner-pairing.js';
import { Pacer, pacing, type PacingLimits } from './pacing.js';
import { type LongPollTiming, Polling } from './polling.js';
import { removeWebhook, runWebhook, type TelegramWebhook } from './webhook.js';
import { reply, type ReplyDeps } from './reply.js';
import { en, menuCalls, textsFor } from './texts/index.js';
import type { UserData } from '../../storage/user-data.js';
import type { Transcriber } from '../../model/transcriber.js';
import type { Speaker } from '../../model/media-out.js';
import { MediaRefusal, mediaTurn, TelegramFiles } from './media.js';
import { countTelegramError } from '../../ops/counters.js';
import { DEFAULT_TURN_GATE, type Place, TurnGate } from './turn-gate.js';
import type { DocumentReader } from '../../media/document-pool.js';
import { applyEdit, type BurstItem, burstInbound, burstItem, burstMs, inOrder, topicOf, turnKey } from './bursts.js';
import { botApiFetch } from './bot-api-fetch.js';

export type TelegramState = ChannelState;

/** What the channel keeps between restarts (the update offset, each chat's and topic's conversation epoch). */
export interface TelegramChannelState {
  telegramOffset(agent: string): number;
  setTelegramOffset(agent: string, offset: number): void;
  /** A forum topic's epoch is its own (DESIGN §9.4); without `topic`, the chat's (its General topic). */
  chatEpoch(agent: string, chatId: number, topic?: number): number;
  newChatEpoch(agent: string, chatId: number, topic?: number): void;
  /** The menu calls this agent's bot was given (menu-record.ts), so a restart does not make them again. */
  telegramMenu(agent: string): string | undefined;
  setTelegramMenu(agent: string, key: string): void;
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
  /** Memory and schedules, for /memory, /forget, /reminders and /cancel_<id>. */
  userData?: UserData;
  wakeScheduler?(): void;
  /** What the model reads besides text (DESIGN §7.3); without it media messages get a sentence. */
  media?: { vision: boolean; transcriber: Transcriber | undefined; documents?: DocumentReader; speaker?: Speaker };
  /** Previews while an answer is written (drafts, or an edited message); default true. */
  stream?: boolean;
  /** The long poll's timeout and margin (polling.ts LONG_POLL unless configured or shortened by tests). */
  longPoll?: Partial<LongPollTiming>;
  /** The quiet time when the owner set no settings.burstMs (the host's TELEGRAM_BURST_MS; else 1500). */
  defaultBurstMs?: number;
  /** Decides a pending pairing code through the control plane (the owner's buttons, DESIGN §9.3). */
  decidePairing?: (code: string, decision: PairingDecision) => Promise<PairingOutcome>;
  /** Webhook mode (webhook.ts): no long poll; updates come through handleUpdate. */
  webhook?: TelegramWebhook;
}

export interface TelegramLimits {
  /** Updates of this bot handled at once; polling waits for a free slot before it fetches more. */
  maxConcurrent: number;
  /** Messages one chat may send per minute before it is told to slow down and ignored. */
  perChatPerMinute: number;
  /** Media turns at once, messages one user and the bot may have waiting (turn-gate.ts's defaults). */
  mediaAtOnce?: number;
  maxWaitingPerUser?: number;
  maxWaiting?: number;
  /** Outbound pacing (Telegram's limits); tests and benchmarks may loosen it. */
  pacing?: PacingLimits;
}

// Menus are set one call at a time for the whole host (menu-queue.ts): a host starting 10,000
// bots would otherwise make 60,000 calls at once and hold all their buffers together
// (bench:density saw ~12 KB more per idle bot).
const menus = new MenuQueue();

// Outermost first, each Bot API call: gets the channel's signal (so a wait ends when the channel
// stops), then waits for its slot (pacing.ts), then a 429 is waited out by its retry_after and the
// same call made again, up to three times (auto-retry). Drafts are not retried: a newer one
// replaces them anyway. The retry holds no state, so every bot of the host shares it.
const retry = autoRetry({
  maxRetryAttempts: 3,
  maxDelaySeconds: 120,
  rethrowInternalServerErrors: true,
  rethrowHttpErrors: true,
});
const retrying: Transformer = (prev, method, payload, signal) =>
  method === 'sendMessageDraft' ? prev(method, payload, signal) : retry(prev, method, payload, signal);

export const DEFAULT_TELEGRAM_LIMITS: TelegramLimits = { maxConcurrent: 8, perChatPerMinute: 20 };
export const SLOW_DOWN_SENTENCE = en.slowDown;
export const CREDITS_SENTENCE = en.credits;
export const DAILY_LIMIT_SENTENCE = en.dailyLimit;

export class TelegramChannel implements Channel, Outbound, BotRoom {
  readonly type = 'telegram';
  private readonly bot: Bot;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly polling: Polling;
  /** The API root grammY resolved (its default when none is configured), for the long poll. */
  private apiRoot: string | undefined;
  private files: TelegramFiles | undefined;
  /** Telegram refused this bot's drafts once: previews are edited messages from then on. */
  private draftsRefused = false;
  private menuChain: Promise<void> = Promise.resolve();
  private readonly pacer: Pacer;
  /** Sending without being asked (reminders, scheduled tasks): DESIGN §8's Outbound port. */
  readonly outbound: TelegramOutbound;
  private readonly limits: TelegramLimits;
  private perChat: RateLimiterMemory | undefined;
  private replyDeps: ReplyDeps | undefined;
  /** One turn at a time per user, media in a few lanes: one user's files never stall another's words. */
  private readonly turns: TurnGate;

  constructor(private readonly o: TelegramOptions) {
    const limits = o.limits ?? DEFAULT_TELEGRAM_LIMITS;
    this.limits = limits;
    // Every Bot API call of this bot listens to its one stop signal while it runs.
    setMaxListeners(0, this.abort.signal);
    this.bot = new Bot(o.botToken, {
      client: {
        ...(o.apiRoot ? { apiRoot: o.apiRoot } : {}),
        // grammY's own calls (getMe, replies, the menu): as long as when the long poll was one of them.
        timeoutSeconds: 40,
        fetch: botApiFetch,
        // grammY's own URL scheme; it also tells the long poll which root grammY resolved.
        buildUrl: (root, token, method) => {
          this.apiRoot = root;
          return `${root}/bot${token}/${method}`;
        },
      },
    });
    // Innermost: every failed attempt is counted (each 429 that auto-retry waits out too), but not
    // the calls cut short because the channel stopped. Transformers see Telegram's refusals as
    // answers ({ok: false, error_code}); only failures to get an answer are thrown.
    this.bot.api.config.use(async (prev, method, payload, signal) => {
      try {
        const answer = await prev(method, payload, signal);
        if (!answer.ok) countTelegramError(answer);
        return answer;
      } catch (err) {
        if (!this.abort.signal.aborted) countTelegramError(err);
        throw err;
      }
    });
    this.bot.api.config.use(retrying);
    this.pacer = new Pacer(limits.pacing);
    this.bot.api.config.use(pacing(this.pacer, this.abort.signal));
    this.bot.api.config.use((prev, method, payload, signal) =>
      prev(method, payload, signal ?? (this.abort.signal as never)),
    );
    this.outbound = new TelegramOutbound(this.bot.api);
    this.turns = new TurnGate({ ...DEFAULT_TURN_GATE, ...limits }, this.abort.signal);
    this.polling = new Polling({
      agent: o.agent,
      bot: this.bot,
      botToken: o.botToken,
      apiRoot: () => this.apiRoot!,
      offsets: o.state,
      log: o.log,
      turns: this.turns,
      signal: this.abort.signal,
      onConnected: () => this.refreshMenu(),
      longPoll: o.longPoll,
    });
    this.bot.use((ctx, next) => {
      enter(ctx, this);
      return botMiddleware()(ctx, next);
    });
  }

  // BotRoom: what the host's one middleware tree asks of this bot.
  get agent() {
    return this.o.agent;
  }
  get accessStore() {
    return this.o.access;
  }
  get userData() {
    return this.o.userData;
  }
  settings() {
    return this.o.settings();
  }
  resetChat(chatId: number, topic?: number) {
    this.o.state.newChatEpoch(this.o.agent, chatId, topic);
  }
  wakeScheduler() {
    this.o.wakeScheduler?.();
  }
  chatLimiter() {
    const perMinute = this.limits.perChatPerMinute;
    this.perChat ??= new RateLimiterMemory({ points: perMinute, duration: 60 });
    return { limiter: this.perChat, perMinute };
  }

  private deps(): ReplyDeps {
    this.replyDeps ??= {
      agent: this.o.agent,
      log: this.o.log,
      respond: this.o.respond,
      signal: this.abort.signal,
      stream: this.o.stream !== false,
      draftsRefused: () => this.draftsRefused,
      onDraftsRefused: () => {
        this.draftsRefused = true;
      },
      previews: this.pacer,
      ...(this.o.media?.speaker
        ? { voice: { speaker: this.o.media.speaker, mode: () => this.o.settings().voiceReplies } }
        : {}),
    };
    return this.replyDeps;
  }

  /**
   * Words join the sender's burst (turn-gate.ts): one turn answers them all, as the last one asks.
   * The daily cap and the chat's budget are taken once, by the message that opens the burst.
   */
  async answerText(ctx: Context) {
    const quiet = burstMs(this.o.settings(), this.o.defaultBurstMs);
    const admit = async () => (await dailyReply(ctx)) && (await chatBudget(ctx));
    const answer = (items: BurstItem[]) => {
      const last = inOrder(items).at(-1)!.ctx;
      return reply(this.deps(), last, burstInbound(toInbound(last, this.epochOf(last)), inOrder(items)), textsOf(last));
    };
    const place = this.places.get(ctx);
    if (!(await this.turns.words<BurstItem>(turnKey(ctx), burstItem(ctx), quiet, answer, admit, place)))
      await ctx.reply(textsOf(ctx).queueFull).catch(() => {});
  }

  /** The conversation epoch of the chat, or forum topic, a message was written in (read as its turn starts). */
  private epochOf(ctx: Context) {
    return this.o.state.chatEpoch(this.o.agent, ctx.chat!.id, topicOf(ctx.message));
  }

  /** An edit of words still waiting for their turn: the turn reads the edit. Others change nothing. */
  answerEdit(ctx: Context) {
    applyEdit(ctx, this.turns.waitingItems<BurstItem>(turnKey(ctx)));
  }

  answerMedia(ctx: Context) {
    return this.inTurn(ctx, true, () => this.mediaAnswer(ctx));
  }
  decidePairing(code: string, decision: PairingDecision): Promise<PairingOutcome> {
    return this.o.decidePairing?.(code, decision) ?? Promise.resolve('failed');
  }

  /**
   * A stranger asked for access: with settings.owner.telegramUserId the owner gets the request
   * with Approve and Deny (middleware/owner-pairing.ts). Telegram refuses it (403) until the owner
   * has written to the bot once; the dashboard and the callback still have it.
   */
  pairingRequested(p: Pairing) {
    const owner = this.o.settings().owner?.telegramUserId;
    if (!owner || this.abort.signal.aborted) return;
    const { text, reply_markup } = ownerNotice(textsFor(this.o.settings().language, undefined), p);
    this.bot.api
      .sendMessage(owner, text, { reply_markup })
      .catch((err) =>
        this.o.log.warn(
          { agent: this.o.agent, err: (err as Error).message },
          'the owner could not be told of a pairing request',
        ),
      );
  }

  /** Every message takes its place in its sender's line as it arrives (turn-gate.ts place()). */
  async arrives(ctx: Context, next: () => Promise<void>) {
    const m = ctx.message!;
    const place = this.turns.place(turnKey(ctx), Boolean(m.photo || m.voice || m.audio || m.document));
    this.places.set(ctx, place);
    try {
      await next();
    } finally {
      place.leave();
    }
  }
  private readonly places = new WeakMap<Context, Place>();

  /** The turn in its user's line (turn-gate.ts); a message past a full line gets one sentence. */
  private async inTurn(ctx: Context, media: boolean, turn: () => Promise<unknown>) {
    const place = this.places.get(ctx);
    if (!(await this.turns.turn(turnKey(ctx), media, turn, undefined, place)))
      await ctx.reply(textsOf(ctx).queueFull).catch(() => {});
  }

  private async mediaAnswer(ctx: Context) {
    const o = this.o;
    const t = textsOf(ctx);
    void ctx.replyWithChatAction('typing').catch(() => {});
    this.files ??= new TelegramFiles(this.apiRoot!, o.botToken);
    let media: Awaited<ReturnType<typeof mediaTurn>>;
    try {
      media = await mediaTurn(ctx.message!, {
        vision: o.media?.vision ?? false,
        transcriber: o.media?.transcriber,
        getFile: (fileId) => ctx.api.getFile(fileId, this.abort.signal as never),
        files: this.files,
        signal: this.abort.signal,
        texts: t,
        tenant: o.agent,
        ...(o.media?.documents ? { documents: o.media.documents } : {}),
      });
    } catch (err) {
      if (this.abort.signal.aborted) return;
      // A file Berth cannot read: one sentence, no model call, nothing stored.
      if (err instanceof MediaRefusal) return void (await ctx.reply(err.sentence).catch(() => {}));
      o.log.warn({ agent: o.agent, err: (err as Error).message }, 'telegram media failed');
      const credits = providerFailure(err) === 'credits';
      return void (await ctx.reply(credits ? t.credits : t.failed).catch(() => {}));
    }
    if (media.notice) await ctx.reply(media.notice).catch(() => {});
    const inbound = {
      ...toInbound(ctx, this.epochOf(ctx)),
      text: media.text,
      stored: media.stored,
      ...(media.images ? { images: media.images } : {}),
    };
    return reply(this.deps(), ctx, inbound, t);
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

  /** Aborted when the channel stops (scheduled task turns run under it). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Outbound: a scheduled message or a task's answer, rendered and split as Telegram needs. */
  sendText(chatId: string, text: string, opts?: SendOptions): Promise<number[]> {
    return this.outbound.sendText(chatId, text, opts);
  }

  /** Scheduled deliveries (made with the first due row: 10,000 idle bots carry none). */
  get scheduled(): Scheduled {
    this.scheduledPort ??= new TelegramScheduled(this, () => this.o.settings().language);
    return this.scheduledPort;
  }
  private scheduledPort: Scheduled | undefined;

  /**
   * Whether a due occurrence for `userId` may go out under the owner's access rules (the gate a
   * message passes): 'not_allowed' and 'over' send nothing; 'first_over' is told once.
   */
  admitScheduled(userId: number, task: boolean): ScheduledAdmission {
    return admitScheduled(this, userId, task, Date.now());
  }

  /** A scheduled task's turn, in the current conversation of its chat or topic, for the user who asked. */
  scheduledInbound({ chat, topic }: TelegramAddress, userId: string, text: string): InboundMessage {
    return scheduledTurn(
      'telegram',
      {
        id: String(chat),
        type: chat > 0 ? 'private' : 'group',
        ...(topic === undefined ? {} : { thread: String(topic) }),
      },
      telegramSession(chat, this.o.state.chatEpoch(this.o.agent, chat, topic), topic),
      userId,
      text,
    );
  }

  details() {
    return { username: this.polling.username ?? null };
  }

  /** Memory and reminders have commands: the / menu follows their switches (and the language). */
  applySettings() {
    this.refreshMenu();
  }

  /**
   * Sets the / menu again if it changed (settings that switch memory or reminders, the language),
   * once getMe has named the bot; a menu the store says this bot already has costs no call.
   */
  refreshMenu() {
    if (this.abort.signal.aborted) return;
    // One refresh at a time per bot, so an older menu is never recorded after a newer one.
    const next = () => this.registerMenu();
    this.menuChain = this.menuChain.then(next, next);
  }

  /** The / menu, in English and in each language Berth's sentences are translated to. */
  private async registerMenu() {
    const signal = this.abort.signal;
    if (signal.aborted) return;
    // Once getMe has named the bot, in either mode: webhook mode never polls, and a bot in it went
    // without its / menu while this waited for a long poll.
    if (this.polling.username === undefined) return;
    const poll = this.polling.api();
    const s = this.o.settings();
    const calls = menuCalls(s.language, { memory: s.tools.memory, reminders: s.tools.reminders });
    const record = new MenuRecord(this.o.botToken, calls, this.o.state.telegramMenu(this.o.agent));
    const translated = calls.map((_, i) => i).filter((i) => i > 0 && record.lacks(i));
    // Each call is recorded as its answer comes: a host stopped while its queue is still setting
    // thousands of bots' menus (minutes) makes again at most the one call it was waiting on.
    const set = async (i: number, lane: 0 | 1) => {
      await menus.add(lane, signal, () => poll.call('setMyCommands', calls[i]!, signal));
      record.add(i);
      this.o.state.setTelegramMenu(this.o.agent, record.toString());
    };
    try {
      if (record.lacks(0)) await set(0, 0);
      // A failed call is made at the next start (a store already closed by a stop throws here,
      // unheard: the call is made again).
      const failed = (await Promise.allSettled(translated.map((i) => set(i, 1)))).find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    } catch (err) {
      if (!signal.aborted)
        this.o.log.warn({ agent: this.o.agent, err: (err as Error).message }, 'telegram menu not set');
    }
  }

  health(): ChannelHealth {
    return { state: this.polling.state, error: this.polling.error };
  }

  start() {
    this.loop ??= this.o.webhook
      ? runWebhook(this.polling, this.bot, this.o.webhook, this.abort.signal)
      : this.polling.run();
  }

  /**
   * An update that came through the control plane's webhook ingress instead of the long poll:
   * handled as a polled one (the same gate, tracked until it finishes). False until the bot is
   * known (getMe answered): the ingress asks again.
   */
  handleUpdate(update: Update): boolean {
    if (this.polling.state !== 'connected' || !this.bot.botInfo) return false;
    const p = this.turns
      .handle(() => this.bot.handleUpdate(update))
      .catch((err) => this.o.log.warn({ agent: this.o.agent, err: (err as Error).message }, 'telegram update failed'));
    const tracked = p.finally(() => this.polling.inflight.delete(tracked));
    this.polling.inflight.add(tracked);
    return true;
  }

  /** The Channel port's name for it (DESIGN §9.1). */
  acceptUpdate(update: unknown): boolean {
    return this.handleUpdate(update as Update);
  }

  /** Ends polling at once: the open long poll is aborted, not waited out. */
  async stop() {
    if (this.o.webhook && this.polling.state === 'connected') await removeWebhook(this.bot);
    this.abort.abort();
    this.polling.state = 'stopped';
    await this.loop;
    await this.polling.close();
    await this.files?.close();
  }
}

/**
 * Scheduled deliveries of one bot: Telegram's keys are "telegram:<chat id>[:<topic>]" and
 * "tg:<user id>"; the chat id it hands the scheduler is the address after "telegram:" (address.ts).
 */
class TelegramScheduled implements Scheduled {
  constructor(
    private readonly bot: TelegramChannel,
    private readonly language: () => string,
  ) {}
  get signal() {
    return this.bot.signal;
  }
  ready() {
    return this.bot.state === 'connected';
  }
  chatOf(chat: string) {
    const address = parseAddress(idIn('telegram', 'chat', chat) ?? '');
    return address && formatAddress(address);
  }
  admit(user: string, task: boolean) {
    return this.bot.admitScheduled(Number(idIn('telegram', 'user', user)), task);
  }
  inbound(chatId: string, user: string, text: string) {
    return this.bot.scheduledInbound(parseAddress(chatId)!, idIn('telegram', 'user', user) ?? user, text);
  }
  refusal(why: 'dailyLimit' | Error) {
    const t = textsFor(this.language(), undefined);
    return why === 'dailyLimit' ? t.dailyLimit : providerFailure(why) === 'credits' ? t.credits : t.failed;
  }
}
