// A loopback Discord speaking the real wire protocol, for the agent's Discord channel and the control
// plane's token check:
// - Gateway v10 over WebSocket (JSON, no compression): HELLO (op 10, heartbeat_interval), IDENTIFY
//   (op 2: the token and intents; an unknown or revoked token closes 4004, the privileged
//   MESSAGE_CONTENT intent without the portal switch closes 4014), READY (op 0 with session_id and
//   resume_gateway_url), HEARTBEAT (op 1) / HEARTBEAT_ACK (op 11), RESUME (op 6: what was missed
//   is replayed, then RESUMED), INVALID_SESSION (op 9), MESSAGE_CREATE and INTERACTION_CREATE
//   dispatches with real-shaped payloads (snowflake ids, author, member, mentions,
//   message_reference). A session keeps its dispatches, so a dropped connection that resumes gets
//   what it missed, as Discord does.
// - REST under /api/v10 (Authorization: Bot <token>): GET /users/@me, GET /gateway/bot,
//   POST/PATCH /channels/{id}/messages[/{id}], POST /channels/{id}/typing,
//   PUT /applications/{id}/commands, POST /interactions/{id}/{token}/callback, with rate-limit
//   headers (X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket) per route and channel, and 429
//   bodies {message, retry_after, global} past a bucket or in a storm.
// - Attachments on a CDN of its own (the same server): /attachments/{channel}/{id}/{filename}
//   ?ex=…&is=…&hm=… as Discord signs them (no token), 404 once an attachment is gone or the
//   signature does not match, bytes with their Content-Length; voice messages carry
//   duration_secs and waveform and the message flag IS_VOICE_MESSAGE (1 << 13).
// - `down`: Discord unreachable (every request 503, the Gateway's upgrade refused) until it is back.
// Everything a bot did is recorded (sent, edits, typing, commands, callbacks), and every request
// made into a bucket that had said "wait" is counted in `violations`.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';
import { close, createServer, listen, readJson, sendJson } from './http.js';

const DISCORD_EPOCH = 1_420_070_400_000n;
let increment = 0n;
/** A snowflake as Discord makes them: ms since 2015 << 22, worker, process, increment (17–19 digits). */
export const snowflake = (at = Date.now()) =>
  String(((BigInt(at) - DISCORD_EPOCH) << 22n) | (1n << 17n) | (1n << 12n) | (increment++ & 0xfffn));

/** GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT: what Berth identifies with. */
export const INTENTS = { GUILDS: 1, GUILD_MESSAGES: 1 << 9, DIRECT_MESSAGES: 1 << 12, MESSAGE_CONTENT: 1 << 15 };

export interface DiscordUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: '0';
  avatar: null;
  bot?: true;
}

export interface DiscordBot {
  token: string;
  applicationId: string;
  user: DiscordUser;
  /** The portal's "Message Content Intent" switch; off: IDENTIFY with it closes 4014. */
  messageContent: boolean;
  revoked: boolean;
}

/** Channel types Berth meets: 0 a server's text channel, 1 a DM, 11 a public thread. */
export interface DiscordChannel {
  id: string;
  type: 0 | 1 | 11;
  guild_id?: string;
  parent_id?: string;
}

/** A message a bot sent through POST /channels/{id}/messages, with its edits. */
export interface SentDiscord {
  id: string;
  channelId: string;
  botId: string;
  content: string;
  /** message_reference.message_id: the message it answers. */
  replyTo?: string;
  at: number;
  edits: Array<{ content: string; at: number }>;
}

interface Session {
  id: string;
  bot: DiscordBot;
  intents: number;
  seq: number;
  /** Every dispatch of the session, so a resume replays what a dropped socket missed. */
  events: Array<{ s: number; t: string; d: unknown }>;
  socket: WebSocket | undefined;
  /** Events before the client's seq that the next resume replays again. */
  overlap?: number;
}

/** A file a user attaches to a message (FakeDiscord.post). */
export interface FakeAttachment {
  filename: string;
  bytes: Buffer;
  contentType?: string;
  /** The size the message announces, when it should not be the bytes' own (a lying or broken CDN). */
  announcedSize?: number;
  /** A voice message recorded in Discord's client: its length in seconds. */
  voiceSeconds?: number;
  /** The CDN no longer has it (404), as an expired or deleted attachment. */
  gone?: boolean;
  /** The URL the message names is on this origin instead of the fake's CDN (a forged payload). */
  origin?: string;
  /** Served slowly, 64 KiB per timer tick, so a client that stops reading is seen to hang up. */
  trickle?: boolean;
}

/** Message flag: a voice message. */
export const IS_VOICE_MESSAGE = 1 << 13;

interface Bucket {
  remaining: number;
  resetAt: number;
  /** A 429 said to wait until then. */
  blockedUntil: number;
}

export interface FakeDiscordOptions {
  heartbeatIntervalMs?: number;
  /** Messages a bot may send or edit per channel per window (Discord: 5 per 5 s). */
  messagesPerWindow?: number;
  windowMs?: number;
}

export class FakeDiscord {
  readonly bots = new Map<string, DiscordBot>();
  readonly channels = new Map<string, DiscordChannel>();
  readonly sent: SentDiscord[] = [];
  readonly typing: Array<{ channelId: string; at: number }> = [];
  readonly commands = new Map<string, Array<{ name: string; description: string }>>();
  readonly callbacks: Array<{ interactionId: string; type: number; content: string; at: number }> = [];
  readonly requests: Array<{ method: string; path: string; status: number }> = [];
  /** Requests made to a bucket before the wait it was told (a 429's retry_after or Reset-After) was over. */
  violations = 0;
  /** IDENTIFY and RESUME payloads as received (token replaced by whether it was known). */
  readonly identifies: Array<{ op: 2 | 6; intents?: number; sessionId?: string; seq?: number }> = [];
  heartbeats = 0;
  /**
   * Requests to the CDN (/attachments/…), with what they were answered; `complete` once the
   * response ended: false when the client hung up before all the bytes were sent.
   */
  readonly cdnRequests: Array<{ path: string; status: number; complete?: boolean }> = [];
  /** The path of every Gateway connection a client tried, refused ones too. */
  readonly dials: string[] = [];
  /** Discord cannot be reached: every REST request answers 503 and the Gateway refuses its upgrade. */
  down = false;
  private readonly files = new Map<string, FakeAttachment & { hm: string }>();
  /** The next n REST requests of any route are answered 429 (a storm). */
  private storm = 0;
  private stormRetryAfter = 0.2;
  private readonly sessions = new Map<string, Session>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly interactions = new Map<string, { token: string; channelId: string }>();
  private readonly server = createServer((req, res) => {
    this.route(req, res).catch((err) => sendJson(res, 500, { message: String(err), code: 0 }));
  });
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly guilds = new Map<string, string>();
  url = '';
  readonly heartbeatIntervalMs: number;
  private readonly perWindow: number;
  private readonly windowMs: number;

  constructor(opts: FakeDiscordOptions = {}) {
    this.heartbeatIntervalMs = opts.heartbeatIntervalMs ?? 41_250;
    this.perWindow = opts.messagesPerWindow ?? 5;
    this.windowMs = opts.windowMs ?? 5_000;
    this.server.on('upgrade', (req, socket, head) => {
      this.dials.push(new URL(req.url ?? '/', 'http://fake').pathname);
      this.notify();
      if (!req.url?.startsWith('/gateway') || this.down) return socket.destroy();
      this.wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws));
    });
  }

  /** The REST root a client is configured with (DISCORD_API_ROOT: versioned by the client). */
  get apiRoot() {
    return `${this.url}/api`;
  }
  get gatewayUrl() {
    return `${this.url.replace(/^http/, 'ws')}/gateway`;
  }

  async start() {
    this.url = await listen(this.server);
    return this;
  }

  async stop() {
    clearInterval(this.ticker);
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
    await close(this.server);
  }

  /** A bot of a new application: its user id is the application id, as Discord makes them. */
  addBot(opts: { username?: string; messageContent?: boolean } = {}): DiscordBot {
    const applicationId = snowflake();
    const token = `${Buffer.from(applicationId).toString('base64url')}.${randomBytes(4).toString('base64url')}.${randomBytes(28).toString('base64url')}`;
    const username = opts.username ?? `berth-bot-${applicationId.slice(-4)}`;
    const bot: DiscordBot = {
      token,
      applicationId,
      user: { id: applicationId, username, global_name: null, discriminator: '0', avatar: null, bot: true },
      messageContent: opts.messageContent ?? true,
      revoked: false,
    };
    this.bots.set(token, bot);
    return bot;
  }

  user(name: string, opts: { bot?: boolean } = {}): DiscordUser {
    return {
      id: snowflake(),
      username: name.toLowerCase().replace(/[^a-z0-9_.]/g, ''),
      global_name: name,
      discriminator: '0',
      avatar: null,
      ...(opts.bot ? { bot: true as const } : {}),
    };
  }

  dmChannel(): DiscordChannel {
    const c: DiscordChannel = { id: snowflake(), type: 1 };
    this.channels.set(c.id, c);
    return c;
  }

  guildChannel(guildId = snowflake()): DiscordChannel {
    const c: DiscordChannel = { id: snowflake(), type: 0, guild_id: guildId };
    this.channels.set(c.id, c);
    this.guilds.set(guildId, guildId);
    return c;
  }

  thread(parent: DiscordChannel): DiscordChannel {
    const c: DiscordChannel = { id: snowflake(), type: 11, guild_id: parent.guild_id!, parent_id: parent.id };
    this.channels.set(c.id, c);
    return c;
  }

  /** The token stops working: REST answers 401, an open gateway closes 4004 and IDENTIFY is refused. */
  revoke(bot: DiscordBot) {
    bot.revoked = true;
    for (const s of this.sessions.values()) if (s.bot === bot) s.socket?.close(4004, 'Authentication failed.');
  }

  /**
   * The connection drops without a close frame (a network failure): the client should resume.
   * `overlap`: the resume replays that many events the client already had too (delivery is at
   * least once), so a client must not act on one twice.
   */
  drop(bot: DiscordBot, opts: { overlap?: number } = {}) {
    for (const s of this.sessions.values())
      if (s.bot === bot && s.socket) {
        s.overlap = opts.overlap ?? 0;
        s.socket.terminate();
        s.socket = undefined;
      }
  }

  /** Sends INVALID_SESSION; not resumable also forgets the session (the client identifies again). */
  invalidate(bot: DiscordBot, resumable: boolean) {
    for (const [id, s] of this.sessions)
      if (s.bot === bot) {
        s.socket?.send(JSON.stringify({ op: 9, d: resumable, s: null, t: null }));
        if (!resumable) this.sessions.delete(id);
      }
  }

  /** The next n REST requests are answered 429 with retry_after seconds. */
  stormNext(n: number, retryAfterS = 0.2) {
    this.storm = n;
    this.stormRetryAfter = retryAfterS;
  }

  /** Whether a bot has a session whose socket is open (READY or RESUMED sent). */
  online(bot: DiscordBot) {
    return [...this.sessions.values()].some((s) => s.bot === bot && s.socket);
  }

  /** How many bots have a session whose socket is open: one pass, for a thousand bots at once (bench:density). */
  onlineBots() {
    const bots = new Set<DiscordBot>();
    for (const s of this.sessions.values()) if (s.socket) bots.add(s.bot);
    return bots.size;
  }

  /**
   * A user writes in a channel the bot sees (MESSAGE_CREATE). `mentions` are users mentioned with
   * <@id> in the content; `replyTo` a message of the channel this one answers.
   */
  post(
    bot: DiscordBot,
    channel: DiscordChannel,
    author: DiscordUser,
    content: string,
    opts: {
      mentions?: DiscordUser[];
      replyTo?: { id: string; author: DiscordUser; content: string };
      everyone?: boolean;
      attachments?: FakeAttachment[];
    } = {},
  ) {
    const id = snowflake();
    const attachments = (opts.attachments ?? []).map((a) => this.attach(channel, a));
    const voice = (opts.attachments ?? []).some((a) => a.voiceSeconds !== undefined);
    const timestamp = new Date().toISOString();
    const message = {
      id,
      channel_id: channel.id,
      ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
      author,
      ...(channel.guild_id
        ? {
            member: {
              roles: [],
              joined_at: timestamp,
              deaf: false,
              mute: false,
              flags: 0,
              nick: null,
              avatar: null,
              premium_since: null,
              pending: false,
            },
          }
        : {}),
      content,
      timestamp,
      edited_timestamp: null,
      tts: false,
      mention_everyone: opts.everyone ?? false,
      mentions: (opts.mentions ?? []).map((u) => ({ ...u, ...(channel.guild_id ? { member: { roles: [] } } : {}) })),
      mention_roles: [],
      attachments,
      embeds: [],
      components: [],
      pinned: false,
      type: opts.replyTo ? 19 : 0,
      flags: voice ? IS_VOICE_MESSAGE : 0,
      nonce: snowflake(),
      ...(opts.replyTo
        ? {
            message_reference: {
              type: 0,
              message_id: opts.replyTo.id,
              channel_id: channel.id,
              ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
            },
            referenced_message: {
              id: opts.replyTo.id,
              channel_id: channel.id,
              author: opts.replyTo.author,
              content: opts.replyTo.content,
              type: 0,
              mentions: [],
              attachments: [],
              embeds: [],
              timestamp,
            },
          }
        : {}),
    };
    this.dispatch(bot, 'MESSAGE_CREATE', message);
    return message;
  }

  /** An attachment as MESSAGE_CREATE carries it, its bytes kept for the CDN. */
  private attach(channel: DiscordChannel, a: FakeAttachment) {
    const id = snowflake();
    const hm = randomBytes(32).toString('hex');
    this.files.set(id, { ...a, hm });
    const now = Math.floor(Date.now() / 1000);
    // Signed for a day: ex is when the link expires, is when it was issued (hex seconds).
    const query = `ex=${(now + 86_400).toString(16)}&is=${now.toString(16)}&hm=${hm}&`;
    const path = `/attachments/${channel.id}/${id}/${encodeURIComponent(a.filename)}?${query}`;
    const png = a.contentType === 'image/png' && a.bytes.length > 24;
    return {
      id,
      filename: a.filename,
      size: a.announcedSize ?? a.bytes.length,
      url: `${a.origin ?? this.url}${path}`,
      proxy_url: `${this.url}${path}`,
      ...(a.contentType ? { content_type: a.contentType } : {}),
      ...(png ? { width: a.bytes.readUInt32BE(16), height: a.bytes.readUInt32BE(20) } : {}),
      content_scan_version: 0,
      ...(a.voiceSeconds !== undefined
        ? {
            duration_secs: a.voiceSeconds,
            waveform: randomBytes(Math.min(256, Math.ceil(a.voiceSeconds * 10))).toString('base64'),
          }
        : {}),
    };
  }

  /** The CDN: an attachment's bytes at its signed URL, as a browser or a bot fetches them. */
  private cdn(url: URL, res: ServerResponse) {
    const m = /^\/attachments\/(\d+)\/(\d+)\/[^/]+$/.exec(url.pathname);
    const file = m ? this.files.get(m[2]!) : undefined;
    const status = !file || file.gone || url.searchParams.get('hm') !== file.hm ? 404 : 200;
    const record: { path: string; status: number; complete?: boolean } = { path: url.pathname, status };
    this.cdnRequests.push(record);
    res.on('close', () => {
      record.complete = res.writableFinished;
      this.notify();
    });
    this.notify();
    if (status !== 200) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('This content is no longer available.');
    }
    res.writeHead(200, {
      'content-type': file!.contentType ?? 'application/octet-stream',
      'content-length': String(file!.bytes.length),
      'cache-control': 'public, max-age=31536000',
    });
    if (!file!.trickle) return void res.end(file!.bytes);
    const bytes = file!.bytes;
    let at = 0;
    const next = () => {
      if (res.destroyed) return;
      if (at >= bytes.length) return void res.end();
      res.write(bytes.subarray(at, at + 65_536));
      at += 65_536;
      setTimeout(next, 1);
    };
    next();
  }

  /** A user runs a slash command (INTERACTION_CREATE, type 2 APPLICATION_COMMAND). */
  slash(bot: DiscordBot, channel: DiscordChannel, user: DiscordUser, name: string, locale = 'en-US') {
    const id = snowflake();
    const token = `aW50ZXJhY3Rpb246${id}:${randomBytes(48).toString('base64url')}`;
    this.interactions.set(id, { token, channelId: channel.id });
    const command = this.commands.get(bot.applicationId)?.find((c) => c.name === name);
    const interaction = {
      id,
      application_id: bot.applicationId,
      type: 2,
      data: { id: (command as { id?: string } | undefined)?.id ?? snowflake(), name, type: 1 },
      channel_id: channel.id,
      channel: { id: channel.id, type: channel.type, ...(channel.guild_id ? { guild_id: channel.guild_id } : {}) },
      ...(channel.guild_id
        ? {
            guild_id: channel.guild_id,
            guild_locale: 'en-US',
            member: { user, roles: [], permissions: '0', nick: null },
          }
        : { user }),
      token,
      version: 1,
      locale,
      app_permissions: '0',
      entitlements: [],
      authorizing_integration_owners: { '0': channel.guild_id ?? user.id },
      context: channel.guild_id ? 0 : 1,
    };
    this.dispatch(bot, 'INTERACTION_CREATE', interaction);
    return interaction;
  }

  /** The messages a bot sent into a channel, in order. */
  sentTo(channelId: string) {
    return this.sent.filter((m) => m.channelId === channelId);
  }

  /** Waits until `check` holds (polled as the fake records things; no fixed sleep). */
  async until<T>(check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = check();
      if (v) return v;
      if (Date.now() > end) throw new Error('FakeDiscord: condition not met in time');
      await new Promise<void>((r) => this.changed.push(r));
    }
  }
  /** Settles at the fake's next change or tick (25 ms): a wait on something outside the fake. */
  next(): Promise<void> {
    return new Promise<void>((r) => this.changed.push(r));
  }
  private changed: Array<() => void> = [];
  private notify() {
    const waiters = this.changed;
    this.changed = [];
    for (const w of waiters) w();
  }
  /** Wakes waiters now and then too (a condition on time passing, a socket closing). */
  private readonly ticker = setInterval(() => this.notify(), 25).unref();

  private dispatch(bot: DiscordBot, t: string, d: unknown) {
    for (const s of this.sessions.values()) {
      if (s.bot !== bot) continue;
      const ev = { s: ++s.seq, t, d };
      s.events.push(ev);
      s.socket?.send(JSON.stringify({ op: 0, ...ev }));
    }
  }

  private connected(ws: WebSocket) {
    let session: Session | undefined;
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: this.heartbeatIntervalMs }, s: null, t: null }));
    ws.on('close', () => {
      if (session?.socket === ws) session.socket = undefined;
      this.notify();
    });
    ws.on('message', (raw) => {
      let p: { op: number; d: any };
      try {
        p = JSON.parse(String(raw));
      } catch {
        return ws.close(4002, 'Error while decoding payload.');
      }
      if (p.op === 1) {
        this.heartbeats++;
        return ws.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
      }
      if (p.op === 2) {
        const bot = this.bots.get(String(p.d?.token ?? '').replace(/^Bot /, ''));
        this.identifies.push({ op: 2, intents: p.d?.intents });
        if (!bot || bot.revoked) return ws.close(4004, 'Authentication failed.');
        if (typeof p.d.intents !== 'number') return ws.close(4013, 'Invalid intent(s).');
        if (p.d.intents & INTENTS.MESSAGE_CONTENT && !bot.messageContent)
          return ws.close(4014, 'Disallowed intent(s).');
        session = { id: randomBytes(16).toString('hex'), bot, intents: p.d.intents, seq: 0, events: [], socket: ws };
        this.sessions.set(session.id, session);
        const ready = {
          v: 10,
          user: bot.user,
          guilds: [...this.guilds.keys()].map((id) => ({ id, unavailable: true })),
          session_id: session.id,
          session_type: 'normal',
          resume_gateway_url: this.gatewayUrl,
          application: { id: bot.applicationId, flags: 1 << 19 },
          private_channels: [],
          relationships: [],
          user_settings: {},
          presences: [],
          geo_ordered_rtc_regions: ['rotterdam'],
          shard: [0, 1],
        };
        ws.send(JSON.stringify({ op: 0, s: ++session.seq, t: 'READY', d: ready }));
        session.events.push({ s: session.seq, t: 'READY', d: ready });
        return this.notify();
      }
      if (p.op === 6) {
        const s = this.sessions.get(String(p.d?.session_id));
        this.identifies.push({ op: 6, sessionId: p.d?.session_id, seq: p.d?.seq });
        const bot = this.bots.get(String(p.d?.token ?? '').replace(/^Bot /, ''));
        if (!bot || bot.revoked) return ws.close(4004, 'Authentication failed.');
        if (!s || s.bot !== bot) return ws.send(JSON.stringify({ op: 9, d: false, s: null, t: null }));
        s.socket?.terminate();
        s.socket = ws;
        session = s;
        const from = Number(p.d.seq ?? 0) - (s.overlap ?? 0);
        s.overlap = 0;
        for (const ev of s.events) if (ev.s > from && ev.t !== 'READY') ws.send(JSON.stringify({ op: 0, ...ev }));
        ws.send(JSON.stringify({ op: 0, s: ++s.seq, t: 'RESUMED', d: { _trace: ['fake-discord'] } }));
        return this.notify();
      }
    });
  }

  private bucketHeaders(key: string, b: Bucket, now: number) {
    return {
      'x-ratelimit-limit': String(this.perWindow),
      'x-ratelimit-remaining': String(Math.max(0, b.remaining)),
      'x-ratelimit-reset': (b.resetAt / 1000).toFixed(3),
      'x-ratelimit-reset-after': (Math.max(0, b.resetAt - now) / 1000).toFixed(3),
      'x-ratelimit-bucket': Buffer.from(key).toString('hex').slice(0, 32),
    };
  }

  /** Takes one request of the bucket: its headers, or a 429 answer already sent. */
  private take(res: ServerResponse, key: string): Record<string, string> | undefined {
    const now = Date.now();
    let b = this.buckets.get(key);
    if (!b || b.resetAt <= now) {
      b = { remaining: this.perWindow, resetAt: now + this.windowMs, blockedUntil: b?.blockedUntil ?? 0 };
      this.buckets.set(key, b);
    }
    if (b.blockedUntil > now) this.violations++;
    if (this.storm > 0) {
      this.storm--;
      b.blockedUntil = now + this.stormRetryAfter * 1000;
      // As Discord does: the bucket reads empty until the wait is over.
      b.remaining = 0;
      b.resetAt = b.blockedUntil;
      this.tooMany(res, this.stormRetryAfter, this.bucketHeaders(key, b, now));
      return undefined;
    }
    if (b.remaining <= 0) {
      const wait = (b.resetAt - now) / 1000;
      b.blockedUntil = b.resetAt;
      this.tooMany(res, wait, this.bucketHeaders(key, b, now));
      return undefined;
    }
    b.remaining--;
    return this.bucketHeaders(key, b, now);
  }

  private tooMany(res: ServerResponse, retryAfter: number, headers: Record<string, string>) {
    sendJson(
      res,
      429,
      { message: 'You are being rate limited.', retry_after: Number(retryAfter.toFixed(3)), global: false },
      { ...headers, 'retry-after': String(Math.ceil(retryAfter)), 'x-ratelimit-scope': 'user' },
    );
  }

  private async route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/api\/v10/, '');
    const method = req.method ?? 'GET';
    if (this.down) {
      this.requests.push({ method, path, status: 503 });
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('upstream connect error or disconnect/reset before headers');
      return this.notify();
    }
    if (method === 'GET' && url.pathname.startsWith('/attachments/')) return this.cdn(url, res);
    const done = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      this.requests.push({ method, path, status });
      if (body === undefined) {
        res.writeHead(status, headers);
        res.end();
      } else sendJson(res, status, body, headers);
      this.notify();
    };
    if (!url.pathname.startsWith('/api/v10/')) return done(404, { message: '404: Not Found', code: 0 });

    // Interaction callbacks are authorised by the interaction's token, not the bot's.
    const cb = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
    if (cb && method === 'POST') {
      const it = this.interactions.get(cb[1]!);
      if (!it || it.token !== cb[2]) return done(404, { message: 'Unknown interaction', code: 10062 });
      const headers = this.take(res, `callback:${cb[1]}`);
      if (!headers) return void this.requests.push({ method, path, status: 429 });
      const body = await readJson(req);
      this.interactions.delete(cb[1]!);
      this.callbacks.push({
        interactionId: cb[1]!,
        type: body.type,
        content: body.data?.content ?? '',
        at: Date.now(),
      });
      return done(204, undefined, headers);
    }

    const auth = String(req.headers.authorization ?? '');
    const bot = auth.startsWith('Bot ') ? this.bots.get(auth.slice(4)) : undefined;
    if (!bot || bot.revoked) return done(401, { message: '401: Unauthorized', code: 0 });

    if (method === 'GET' && path === '/users/@me')
      return done(200, { ...bot.user, flags: 0, mfa_enabled: false, locale: 'en-US', verified: true, email: null });
    if (method === 'GET' && path === '/gateway/bot')
      return done(200, {
        url: this.gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
      });

    const cmds = /^\/applications\/(\d+)\/commands$/.exec(path);
    if (cmds && method === 'PUT') {
      if (cmds[1] !== bot.applicationId) return done(403, { message: 'Missing Access', code: 50001 });
      const body = (await readJson(req)) as Array<{ name: string; description: string }>;
      const withIds = body.map((c) => ({
        ...c,
        id: snowflake(),
        application_id: bot.applicationId,
        version: snowflake(),
        type: 1,
      }));
      this.commands.set(bot.applicationId, withIds);
      return done(200, withIds);
    }

    const m = /^\/channels\/(\d+)\/(messages|typing)(?:\/(\d+))?$/.exec(path);
    const channel = m ? this.channels.get(m[1]!) : undefined;
    if (!m || !channel) return done(404, { message: 'Unknown Channel', code: 10003 });
    if (m[2] === 'typing' && method === 'POST') {
      this.typing.push({ channelId: channel.id, at: Date.now() });
      return done(204);
    }
    const headers = this.take(res, `messages:${bot.token}:${channel.id}`);
    if (!headers) return void this.requests.push({ method, path, status: 429 });
    const body = await readJson(req);
    if (method === 'POST' && m[2] === 'messages' && !m[3]) {
      const content = String(body.content ?? '');
      if (!content.trim()) return done(400, { message: 'Cannot send an empty message', code: 50006 }, headers);
      if (content.length > 2000)
        return done(
          400,
          {
            message: 'Invalid Form Body',
            code: 50035,
            errors: {
              content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] },
            },
          },
          headers,
        );
      const sent: SentDiscord = {
        id: snowflake(),
        channelId: channel.id,
        botId: bot.user.id,
        content,
        ...(body.message_reference?.message_id ? { replyTo: String(body.message_reference.message_id) } : {}),
        at: Date.now(),
        edits: [],
      };
      this.sent.push(sent);
      return done(200, this.messageOf(sent, bot), headers);
    }
    if (method === 'PATCH' && m[3]) {
      const sent = this.sent.find((s) => s.id === m[3] && s.channelId === channel.id);
      if (!sent) return done(404, { message: 'Unknown Message', code: 10008 }, headers);
      if (sent.botId !== bot.user.id)
        return done(403, { message: 'Cannot edit a message authored by another user', code: 50005 }, headers);
      const content = String(body.content ?? sent.content);
      if (content.length > 2000) return done(400, { message: 'Invalid Form Body', code: 50035 }, headers);
      sent.content = content;
      sent.edits.push({ content, at: Date.now() });
      return done(200, this.messageOf(sent, bot), headers);
    }
    return done(405, { message: '405: Method Not Allowed', code: 0 });
  }

  private messageOf(s: SentDiscord, bot: DiscordBot) {
    return {
      id: s.id,
      channel_id: s.channelId,
      author: bot.user,
      content: s.content,
      timestamp: new Date(s.at).toISOString(),
      edited_timestamp: s.edits.length ? new Date(s.edits.at(-1)!.at).toISOString() : null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      type: s.replyTo ? 19 : 0,
      flags: 0,
    };
  }
}
