// The Discord connection of one bot: the Gateway (v10) through @discordjs/ws and REST through
// @discordjs/rest, the only place that imports them (decision 0033-discord). The libraries keep the
// heartbeats, resume after a drop or a resumable INVALID_SESSION (identify again otherwise), and
// follow REST's rate-limit buckets and 429 retry_after; this module turns what they report into the
// channel's state and an owner's sentence: a refused token (REST 401, close 4004) and a missing
// Message Content switch (close 4014) fail the channel, since retrying cannot fix either. Discord
// unreachable at start (a network error, a 5xx on GET /gateway/bot) is not a failure: the channel
// stays `connecting`, says so, and tries again with capped exponential backoff and jitter until it
// connects or is stopped (decision 0033-discord-attachments).
import { DiscordAPIError, REST } from '@discordjs/rest';
import {
  type SessionInfo,
  SimpleShardingStrategy,
  WebSocketManager,
  WebSocketShardEvents,
  type WebSocketShard,
} from '@discordjs/ws';
import type { ChannelHealth } from '../channel.js';

/** GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT: what the channel reads, nothing more. */
export const DISCORD_INTENTS = 1 | (1 << 9) | (1 << 12) | (1 << 15);
export const DISCORD_API_ROOT = 'https://discord.com/api';

export const REVOKED_SENTENCE =
  'Discord refused the bot token (it was reset or revoked). Copy a new token from the Bot page of the Discord Developer Portal and save the channel again.';
export const INTENT_SENTENCE =
  'Discord refused the Message Content intent. Turn on "Message Content Intent" under Privileged Gateway Intents on the Bot page of the Discord Developer Portal, then save the channel again.';

export const LOST_SENTENCE = "Lost the connection to Discord's Gateway; reconnecting.";

/** When the next try at the start-up connection is due: how it waits, and how its jitter is drawn. */
export interface RetryOptions {
  /** The first wait (the step doubles per try, up to maxMs). */
  baseMs?: number;
  maxMs?: number;
  random?: () => number;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (timer: unknown) => void;
}

const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/**
 * Capped exponential backoff with equal jitter: half of the step is fixed, half drawn, so a host
 * whose bots all lost Discord at once does not call back in step, and no try follows at once.
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random) {
  const step = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return step / 2 + (random() * step) / 2;
}

export interface GatewayOptions {
  botToken: string;
  apiRoot?: string;
  /** DISCORD_GATEWAY_URL: instead of the url GET /gateway/bot names (tests, proxies). */
  gatewayUrl?: string;
  /** A dispatch (op 0) other than READY/RESUMED: MESSAGE_CREATE, INTERACTION_CREATE, … */
  onDispatch(t: string, d: unknown): void;
  onReady(user: { id: string; username: string }): void;
  onTrouble(err: Error): void;
  retry?: RetryOptions;
}

/** Gateway close codes after which Discord will not take the same identify again. */
const FATAL: Record<number, string> = { 4004: REVOKED_SENTENCE, 4014: INTENT_SENTENCE };

export class DiscordGateway {
  readonly rest: REST;
  private readonly ws: WebSocketManager;
  health: ChannelHealth = { state: 'connecting', error: undefined };
  private stopped = false;
  /** This bot's Gateway session (id, sequence, resume url), for its resume and heartbeats. */
  private session: SessionInfo | null = null;
  private retryTimer: unknown;
  private attempts = 0;

  constructor(private readonly o: GatewayOptions) {
    // No sweeper timers: one bot has a handful of buckets, and 1,000 idle bots a host would
    // otherwise carry 2,000 intervals.
    this.rest = new REST({
      api: o.apiRoot ?? DISCORD_API_ROOT,
      version: '10',
      hashSweepInterval: 0,
      handlerSweepInterval: 0,
      timeout: 15_000,
    }).setToken(o.botToken);
    const gatewayUrl = o.gatewayUrl;
    this.ws = new (class extends WebSocketManager {
      override async fetchGatewayInformation(force?: boolean) {
        const info = await super.fetchGatewayInformation(force);
        return gatewayUrl ? { ...info, url: gatewayUrl } : info;
      }
    })({
      token: o.botToken,
      intents: DISCORD_INTENTS,
      rest: this.rest,
      shardCount: 1,
      // The library's default keeps sessions in one store per process, keyed by shard id, and every
      // bot of a host is shard 0: each bot would resume (and heartbeat) with whichever bot last
      // wrote it, get INVALID_SESSION and identify again, losing what was sent while it was down.
      retrieveSessionInfo: () => this.session,
      updateSessionInfo: (_shardId, info) => {
        this.session = info;
      },
      buildStrategy: (manager) => new StoppableStrategy(manager, () => this.stopped),
    });
    this.ws.on(WebSocketShardEvents.Ready, (data) => {
      this.health = { state: 'connected', error: undefined };
      o.onReady({ id: data.user.id, username: data.user.username });
    });
    this.ws.on(WebSocketShardEvents.Resumed, () => {
      this.health = { state: 'connected', error: undefined };
    });
    this.ws.on(WebSocketShardEvents.Closed, (code) => {
      if (this.stopped) return;
      const fatal = FATAL[code];
      // Anything else the library reconnects or resumes by itself; 1006 (no close frame) is the
      // network, which the owner may want to know of while it lasts.
      this.health = fatal
        ? { state: 'failed', error: fatal }
        : { state: 'connecting', error: code === 1006 ? LOST_SENTENCE : undefined };
    });
    this.ws.on(WebSocketShardEvents.Dispatch, (payload) => {
      if (payload.t === 'READY' || payload.t === 'RESUMED') return;
      o.onDispatch(payload.t, payload.d);
    });
    this.ws.on(WebSocketShardEvents.Error, (err) => o.onTrouble(err));
  }

  /** Connects; Discord unreachable: tried again after a backoff, until connected or stopped. */
  async connect(): Promise<void> {
    this.retryTimer = undefined;
    if (this.stopped) return;
    try {
      await this.ws.connect();
      this.attempts = 0;
    } catch (err) {
      // A close the library reported first (4004, 4014) already says what to fix.
      if (this.stopped || this.health.state === 'failed') return;
      this.o.onTrouble(err as Error);
      const refused = refusedStart(err);
      if (refused) this.health = { state: 'failed', error: refused };
      else this.retryLater(err as Error);
    }
  }

  private retryLater(err: Error) {
    const r = this.o.retry ?? {};
    const wait = backoffDelay(this.attempts++, r.baseMs ?? RETRY_BASE_MS, r.maxMs ?? RETRY_MAX_MS, r.random);
    this.health = {
      state: 'connecting',
      error: `Could not reach Discord (${err.message}); retrying in ${Math.max(1, Math.round(wait / 1000))} s.`,
    };
    const later = () => void this.connect();
    if (r.setTimeout) this.retryTimer = r.setTimeout(later, wait);
    else {
      const t = setTimeout(later, wait);
      // A bot waiting for Discord does not keep the host alive on its own.
      t.unref();
      this.retryTimer = t;
    }
  }

  async stop() {
    this.stopped = true;
    if (this.retryTimer !== undefined) {
      (this.o.retry?.clearTimeout ?? ((t) => clearTimeout(t as NodeJS.Timeout)))(this.retryTimer);
      this.retryTimer = undefined;
    }
    this.health = { state: 'stopped', error: undefined };
    await Promise.resolve(this.ws.destroy()).catch(() => {});
  }
}

/**
 * Why Discord's answer at start is final, or undefined when trying again may help: a refused token
 * (401) and any other 4xx fail the channel; a 5xx after REST's own retries, a network error, a
 * timeout or too few session starts left are Discord unreachable for now.
 */
function refusedStart(err: unknown): string | undefined {
  if (!(err instanceof DiscordAPIError) || err.status < 400 || err.status >= 500 || err.status === 429)
    return undefined;
  // GET /gateway/bot with a refused token: the same fix as a 4004.
  return err.status === 401 ? REVOKED_SENTENCE : `Discord refused the connection (HTTP ${err.status}): ${err.message}`;
}

/**
 * The library's strategy, with one guard: a shard whose connection dropped waits 500 ms and then
 * dials again on its own, and a destroy() landing in that wait finds it idle and leaves it be, so
 * a channel stopped while Discord was unreachable kept dialling forever (a connection and a timer
 * no one owned, decision 0033-discord-attachments). Each shard's next dial is a no-op once the
 * gateway is stopped. internalConnect is the library's private method; the Discord tests fail by
 * name if an upgrade renames it ("a stop while the library waits to reconnect…").
 */
/** A shard's socket as the library keeps it (ws's WebSocket), for its error listener. */
type Dialling = { connection?: { on?(event: 'error', listener: () => void): void } };

class StoppableStrategy extends SimpleShardingStrategy {
  constructor(
    manager: WebSocketManager,
    private readonly stopped: () => boolean,
  ) {
    super(manager);
  }

  private get all() {
    return (this as unknown as { shards: Map<number, WebSocketShard> }).shards.values();
  }

  /**
   * The library's destroy() of a socket still dialling drops its error handler, and the socket's
   * "socket hang up" that follows would be an uncaught exception of the host: a no-op listener
   * takes it.
   */
  override async destroy(options?: Parameters<SimpleShardingStrategy['destroy']>[0]) {
    for (const shard of this.all) (shard as unknown as Dialling).connection?.on?.('error', () => {});
    return super.destroy(options);
  }

  override async spawn(shardIds: number[]) {
    await super.spawn(shardIds);
    for (const shard of this.all) {
      const s = shard as unknown as { internalConnect: () => Promise<void>; guarded?: true };
      if (typeof s.internalConnect !== 'function')
        throw new Error('@discordjs/ws: WebSocketShard.internalConnect is gone');
      if (s.guarded) continue;
      const dial = s.internalConnect.bind(shard);
      s.internalConnect = () => (this.stopped() ? Promise.resolve() : dial());
      s.guarded = true;
    }
  }
}

/** A refused token on a REST call fails the channel as a 4004 does. */
export const tokenRefused = (err: unknown) => err instanceof DiscordAPIError && err.status === 401;
