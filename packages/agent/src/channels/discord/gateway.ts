// The Discord connection of one bot: the Gateway (v10) through @discordjs/ws and REST through
// @discordjs/rest, the only place that imports them (decision 0033-discord). The libraries keep the
// heartbeats, resume after a drop or a resumable INVALID_SESSION (identify again otherwise), and
// follow REST's rate-limit buckets and 429 retry_after; this module turns what they report into the
// channel's state and an owner's sentence: a refused token (REST 401, close 4004) and a missing
// Message Content switch (close 4014) fail the channel, since retrying cannot fix either.
import { DiscordAPIError, REST } from '@discordjs/rest';
import { type SessionInfo, WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import type { ChannelHealth } from '../channel.js';

/** GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT: what the channel reads, nothing more. */
export const DISCORD_INTENTS = 1 | (1 << 9) | (1 << 12) | (1 << 15);
export const DISCORD_API_ROOT = 'https://discord.com/api';

export const REVOKED_SENTENCE =
  'Discord refused the bot token (it was reset or revoked). Copy a new token from the Bot page of the Discord Developer Portal and save the channel again.';
export const INTENT_SENTENCE =
  'Discord refused the Message Content intent. Turn on "Message Content Intent" under Privileged Gateway Intents on the Bot page of the Discord Developer Portal, then save the channel again.';

export interface GatewayOptions {
  botToken: string;
  apiRoot?: string;
  /** DISCORD_GATEWAY_URL: instead of the url GET /gateway/bot names (tests, proxies). */
  gatewayUrl?: string;
  /** A dispatch (op 0) other than READY/RESUMED: MESSAGE_CREATE, INTERACTION_CREATE, … */
  onDispatch(t: string, d: unknown): void;
  onReady(user: { id: string; username: string }): void;
  onTrouble(err: Error): void;
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
      // Anything else the library reconnects or resumes by itself.
      this.health = fatal ? { state: 'failed', error: fatal } : { state: 'connecting', error: undefined };
    });
    this.ws.on(WebSocketShardEvents.Dispatch, (payload) => {
      if (payload.t === 'READY' || payload.t === 'RESUMED') return;
      o.onDispatch(payload.t, payload.d);
    });
    this.ws.on(WebSocketShardEvents.Error, (err) => o.onTrouble(err));
  }

  async connect() {
    try {
      await this.ws.connect();
    } catch (err) {
      // A close the library reported first (4004, 4014) already says what to fix.
      if (this.stopped || this.health.state === 'failed') return;
      // GET /gateway/bot with a refused token: the same fix as a 4004.
      if (err instanceof DiscordAPIError && err.status === 401)
        this.health = { state: 'failed', error: REVOKED_SENTENCE };
      else this.health = { state: 'failed', error: `Could not reach Discord: ${(err as Error).message}` };
      this.o.onTrouble(err as Error);
    }
  }

  async stop() {
    this.stopped = true;
    this.health = { state: 'stopped', error: undefined };
    await Promise.resolve(this.ws.destroy()).catch(() => {});
  }
}

/** A refused token on a REST call fails the channel as a 4004 does. */
export const tokenRefused = (err: unknown) => err instanceof DiscordAPIError && err.status === 401;
