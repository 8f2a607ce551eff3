// Fetching updates: getMe until Telegram knows the token, then long polls for ever, each update
// handed to grammY with a bound on how many run at once.
//
// getUpdates, the one Bot API call a bot makes all the time, runs on its own undici client. grammY's
// generic call path (an AbortController polyfill, a timeout and three promises per call; node-fetch
// then) held about 14.5 KB of heap for each long poll in flight, this about 4.5 KB: at 10,000
// bots a poll starts every 2.5 ms and lives 25 s, so what it holds is what the young generation
// copies and promotes (docs/decisions/0015, "Third pass"). Everything else a bot does (getMe,
// replies, commands, update handling) stays with grammY, and failures keep grammY's error types.
import { GrammyError, HttpError, type Bot } from 'grammy';
import type { Logger } from 'pino';
import type { ChannelState } from '../channel.js';
import { telegramWaitReason } from './wait-reason.js';
import { countTelegramError } from '../../ops/counters.js';
import type { Update } from 'grammy/types';
import type { Client } from 'undici';
import type { TurnGate } from './turn-gate.js';
import { loadUndici } from '../../http/undici.js';

type ApiAnswer =
  | { ok: true; result: Update[] }
  | { ok: false; error_code: number; description: string; parameters?: { retry_after?: number } };

/** The kinds of update the bot handles (the long poll and setWebhook ask for the same). */
export const ALLOWED_UPDATES = ['message', 'edited_message', 'callback_query'] as const;

/**
 * How long Telegram holds a poll without updates, and how long after that an answer may still come
 * (its latency, a busy Telegram) before the poll is given up as unanswered.
 */

export interface LongPollTiming {
  timeoutS: number;
  marginMs: number;
}

/**
 * 15 s, not 25: a network that drops packets without an error (Telegram took the connection and
 * never answers) is known only when a poll's deadline passes, and the owner must see it within
 * 30 s (issue 57): 15 s + 5 s here, then the control plane's health watch (5 s). The margin is
 * wide enough that a slow, healthy answer never counts as a failure.
 */
export const LONG_POLL: LongPollTiming = { timeoutS: 15, marginMs: 5_000 };

/** When a long poll counts as unanswered: its timeout plus the margin. */
export const pollDeadlineMs = (t: LongPollTiming) => t.timeoutS * 1000 + t.marginMs;

/** undici's own deadlines, which the long poll's deadline is (no timer of ours per poll). */
const isDeadline = (err: unknown) => {
  const code = (err as { code?: string })?.code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
};

export class LongPoll {
  private client: Client | undefined;
  private readonly origin: string;
  private readonly path: string;

  /** `apiRoot` as grammY takes it (origin and optional path, no trailing slash). */
  constructor(
    apiRoot: string,
    token: string,
    readonly timing: LongPollTiming = LONG_POLL,
  ) {
    const root = new URL(apiRoot);
    this.origin = root.origin;
    this.path = `${root.pathname.replace(/\/$/, '')}/bot${token}/getUpdates`;
  }

  /** Telegram's refusals throw GrammyError (error_code, parameters) like grammY's own calls. */
  async getUpdates(offset: number, signal: AbortSignal): Promise<Update[]> {
    const { Client } = await loadUndici();
    // No answer by the deadline: the poll is given up (undici's timers, which cost no allocation
    // per poll), and the polling loop says so in its health.
    const limitMs = pollDeadlineMs(this.timing);
    this.client ??= new Client(this.origin, { headersTimeout: limitMs, bodyTimeout: limitMs });
    const payload = { offset, timeout: this.timing.timeoutS, allowed_updates: [...ALLOWED_UPDATES] };
    const res = await this.client.request({
      path: this.path,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal,
    });
    const answer = (await res.body.json()) as ApiAnswer;
    if (answer.ok) return answer.result;
    throw new GrammyError("Call to 'getUpdates' failed!", answer, 'getUpdates', payload);
  }

  /**
   * A rare call (the command menu) on undici's shared pool: not this bot's one connection, which
   * a long poll holds, and not grammY's call path, whose per-call garbage bench:density sees when
   * thousands of bots start at once.
   */
  async call(method: string, payload: object, signal: AbortSignal): Promise<unknown> {
    const { request } = await loadUndici();
    const res = await request(`${this.origin}${this.path.replace(/getUpdates$/, method)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal,
    });
    const answer = (await res.body.json()) as { ok: boolean; result?: unknown } & ApiAnswer;
    if (answer.ok) return answer.result;
    throw new GrammyError(`Call to '${method}' failed!`, answer as never, method as never, payload as never);
  }

  close() {
    const client = this.client;
    this.client = undefined;
    return client?.destroy().catch(() => {});
  }
}

export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    // The listener goes with the wait: the channel's signal lives as long as the bot.
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/** A network failure of the long poll, in grammY's words (undici's errors never carry the URL). */
const describe = (err: unknown) =>
  `Network request for 'getUpdates' failed! (${(err as Error).message ?? String(err)})`;

/** A poll that got no answer at all: the connection stands, nothing comes back. */
const unanswered = (t: LongPollTiming) =>
  `Telegram did not answer getUpdates within ${pollDeadlineMs(t) / 1000} s (a long poll of ${t.timeoutS} s); the network to Telegram may be dropping packets. Retrying.`;

export interface PollingDeps {
  agent: string;
  bot: Bot;
  botToken: string;
  /** The API root grammY resolved (known after its first call). */
  apiRoot(): string;
  offsets: { telegramOffset(agent: string): number; setTelegramOffset(agent: string, offset: number): void };
  log: Logger;
  /** How many updates run at once (turn-gate.ts): a user's parked messages do not count. */
  turns: TurnGate;
  signal: AbortSignal;
  /**
   * Called once updates can come: after getMe when polling, after setWebhook in webhook mode. The
   * menu is asked for then.
   */
  onConnected?(): void;
  /** The long poll's timeout and margin, each LONG_POLL's unless given (the operator's, or a test's). */
  longPoll?: Partial<LongPollTiming>;
}

/** Shown in health and statusMessage while another program takes this bot's updates. */
export const CONFLICT_REASON =
  'Another program is polling this bot (Telegram answered 409 Conflict to getUpdates). Stop the other program, or give this assistant a bot token of its own; Berth backs off instead of fighting over the bot.';
const CONFLICT_BACKOFF_MS = { first: 5_000, max: 60_000 };

/** The polling loop and what it learned: state, the reason it is not connected, the username. */
export class Polling {
  state: ChannelState = 'connecting';
  error: string | undefined;
  username: string | undefined;
  poll: LongPoll | undefined;
  readonly inflight = new Set<Promise<void>>();

  constructor(private readonly d: PollingDeps) {}

  /**
   * The bot's own Bot API caller: its long poll, and the rare calls (the menu) in either mode. Made
   * at its first need; it connects only when it polls.
   */
  api(): LongPoll {
    this.poll ??= new LongPoll(this.d.apiRoot(), this.d.botToken, { ...LONG_POLL, ...this.d.longPoll });
    return this.poll;
  }

  async close() {
    await this.poll?.close();
    await Promise.allSettled([...this.inflight]);
  }

  /**
   * getMe until it answers (a token Telegram rejects is final, anything else is worth retrying):
   * false when stopped or failed. Long polling and webhook mode (webhook.ts) both start here.
   */
  async identify(): Promise<boolean> {
    const { signal, bot } = this.d;
    let backoff = 1000;
    let attempt = 0;
    while (!signal.aborted) {
      attempt++;
      try {
        // Not bot.init(): it retries 5xx answers forever and would hide why we are not ready.
        bot.botInfo = await bot.api.getMe(signal as never);
        this.username = bot.botInfo.username;
        break;
      } catch (err) {
        if (signal.aborted) return false;
        if (err instanceof GrammyError && (err.error_code === 401 || err.error_code === 404)) {
          this.fail(
            `Telegram rejected the bot token (${err.error_code} ${err.description}). Check the token with @BotFather and update the deployment.`,
          );
          return false;
        }
        this.error = telegramWaitReason(err, attempt);
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
    return !signal.aborted;
  }

  /**
   * Confirms what the long poll took: Telegram drops updates below the offset only at the next
   * getUpdates, and a webhook set before that would be sent them again (answered twice). A webhook
   * already set answers 409: nothing to confirm then.
   */
  async confirmOffset() {
    const offset = this.d.offsets.telegramOffset(this.d.agent);
    if (offset)
      await this.d.bot.api.getUpdates({ offset, limit: 1, timeout: 0 }, this.d.signal as never).catch(() => {});
  }

  /** Updates can come: the bot is known and its updates reach it (the poll runs, or the webhook is set). */
  connected() {
    this.state = 'connected';
    this.error = undefined;
    this.d.log.info({ agent: this.d.agent, bot: this.username }, 'telegram connected');
    void this.d.onConnected?.();
  }

  async run() {
    const { signal, bot } = this.d;
    if (!(await this.identify())) return;
    this.connected();
    let offset = this.d.offsets.telegramOffset(this.d.agent);
    const poll = this.api();
    const stopped = new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    let backoff = 1000;
    let conflictBackoff = CONFLICT_BACKOFF_MS.first;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        updates = await poll.getUpdates(offset, signal);
        backoff = 1000;
        conflictBackoff = CONFLICT_BACKOFF_MS.first;
        if (this.state !== 'connected' || this.error) {
          this.state = 'connected';
          this.error = undefined;
        }
      } catch (err) {
        if (signal.aborted) return;
        // The long poll is not a grammY call: its failures are counted here (getMe's by the channel).
        countTelegramError(err);
        if (err instanceof GrammyError && err.error_code === 401) {
          this.fail(
            `Telegram rejected the bot token (401 ${err.description}). Check the token with @BotFather and update the deployment.`,
          );
          return;
        }
        if (err instanceof GrammyError && err.error_code === 409) {
          if (/webhook/i.test(err.description)) {
            // A webhook set on this bot (by its owner, earlier): polling needs it gone.
            await bot.api.deleteWebhook().catch(() => {});
          } else {
            // Another program polls with this token: each poll of one ends the other's. Say so
            // and poll seldom, so the other program keeps working and the owner can see why.
            this.error = CONFLICT_REASON;
            this.d.log.warn({ agent: this.d.agent }, 'telegram: another program polls this bot; backing off');
            await sleep(conflictBackoff, signal);
            conflictBackoff = Math.min(conflictBackoff * 2, CONFLICT_BACKOFF_MS.max);
            continue;
          }
        }
        // A 429 says how long to wait: that long, instead of the backoff.
        const retryAfter = err instanceof GrammyError ? err.parameters.retry_after : undefined;
        this.error = `Telegram polling failed: ${err instanceof HttpError || err instanceof GrammyError ? err.message : isDeadline(err) ? unanswered(poll.timing) : describe(err)}`;
        this.d.log.warn({ agent: this.d.agent, err: this.error }, 'telegram polling error');
        await sleep(retryAfter !== undefined ? retryAfter * 1000 : backoff, signal);
        backoff = Math.min(backoff * 2, 30_000);
        continue;
      }
      for (const update of updates) {
        offset = update.update_id + 1;
        this.d.offsets.setTelegramOffset(this.d.agent, offset);
        const p = this.d.turns
          .handle(() => bot.handleUpdate(update))
          .catch((err) =>
            this.d.log.warn({ agent: this.d.agent, err: (err as Error).message }, 'telegram update failed'),
          );
        const tracked = p.finally(() => this.inflight.delete(tracked));
        this.inflight.add(tracked);
        // Bounded work per bot: unfetched updates wait at Telegram, not in our memory.
        while (this.d.turns.full && !signal.aborted) await Promise.race([this.d.turns.room(), stopped]);
      }
    }
  }

  fail(reason: string) {
    this.state = 'failed';
    this.error = reason;
    this.d.log.warn({ agent: this.d.agent, reason }, 'telegram failed');
  }
}
