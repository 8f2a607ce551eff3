// The Discord channel of one assistant (DESIGN §9.1): a Gateway connection (gateway.ts), each
// addressed message (message.ts) answered in its channel's conversation (a thread is a channel of
// its own, so its own conversation), one turn at a time per user and chat, attachments through the
// media pipeline (media.ts), and /reset and /help as slash commands. An end user is ('discord',
// user id): the owner's access rules and per-user limits count them so, before any file is
// downloaded. A message the Gateway replays after a resume is answered once.
import type { AssistantSettings } from '@berth/contracts/settings';
import { providerFailure } from '../../core/events.js';
import { channelSession, idIn, type InboundMessage, scheduledTurn } from '../../core/inbound.js';
import { admitListed, type ListedAccess } from '../listed-access.js';
import type { Channel, ChannelContext, ChannelHealth, Scheduled, ScheduledAdmission } from '../channel.js';
import { type Texts, textsFor } from '../telegram/texts/index.js';
import { discordHelp, type InteractionPayload, mayReset, slashCommands } from './commands.js';
import { DiscordGateway, REVOKED_SENTENCE, tokenRefused } from './gateway.js';
import { attachmentTurn, DiscordCdn, MediaRefusal, type MediaTurn } from './media.js';
import { addressed, type DiscordMessagePayload } from './message.js';
import { answer, type AnswerDeps } from './reply.js';
import { DiscordOutbound, DiscordSender } from './sender.js';

export interface DiscordOptions {
  botToken: string;
  applicationId: string;
  /** DISCORD_API_ROOT (unversioned, as discord.com/api); tests point it at FakeDiscord. */
  apiRoot?: string;
  /** DISCORD_GATEWAY_URL: instead of the url GET /gateway/bot names. */
  gatewayUrl?: string;
  /** `false`: no streamed edits, the answer once it is written. */
  stream?: boolean;
  /** The first wait before an unreachable Discord is tried again (1 s); tests shorten it. */
  retryBaseMs?: number;
}

/** Message ids remembered against a resume's replay (a few minutes of a busy bot). */
const SEEN_MAX = 2_000;
/** Where settings.access lists Discord users (by user id). */
const DISCORD_USERS: ListedAccess = { channel: 'discord', allowed: 'discordUserIds', blocked: 'blockedDiscordUserIds' };

export class DiscordChannel implements Channel {
  readonly type = 'discord';
  private readonly abort = new AbortController();
  private readonly gateway: DiscordGateway;
  private readonly sender: DiscordSender;
  readonly outbound: DiscordOutbound;
  private botId: string | undefined;
  private username: string | undefined;
  private failed: string | undefined;
  private readonly seen = new Set<string>();
  /** Each user's turn in each chat, so their next message waits for the answer before it. */
  private readonly lines = new Map<string, Promise<void>>();
  /** Chats known to be DMs (a reminder's turn needs the chat's kind). */
  private readonly dms = new Set<string>();
  private commandsSet = false;
  private readonly cdn: DiscordCdn;

  constructor(
    private readonly o: DiscordOptions,
    private readonly ctx: ChannelContext,
  ) {
    this.gateway = new DiscordGateway({
      botToken: o.botToken,
      ...(o.apiRoot ? { apiRoot: o.apiRoot } : {}),
      ...(o.gatewayUrl ? { gatewayUrl: o.gatewayUrl } : {}),
      ...(o.retryBaseMs !== undefined ? { retry: { baseMs: o.retryBaseMs } } : {}),
      onReady: (user) => {
        this.botId = user.id;
        this.username = user.username;
        this.registerCommands();
      },
      onDispatch: (t, d) => {
        if (t === 'MESSAGE_CREATE') this.onMessage(d as DiscordMessagePayload);
        else if (t === 'INTERACTION_CREATE') this.onInteraction(d as InteractionPayload);
      },
      onTrouble: (err) => ctx.log.warn({ agent: ctx.agent, err: err.message }, 'discord gateway trouble'),
    });
    this.sender = new DiscordSender(this.gateway.rest, this.abort.signal);
    this.outbound = new DiscordOutbound(this.sender);
    this.cdn = new DiscordCdn(o.apiRoot);
  }

  start() {
    void this.gateway.connect();
  }

  async stop() {
    this.abort.abort();
    await this.gateway.stop();
  }

  health(): ChannelHealth {
    if (this.failed) return { state: 'failed', error: this.failed };
    return this.gateway.health;
  }

  details() {
    return { applicationId: this.o.applicationId, botUsername: this.username ?? null };
  }

  applySettings(_settings: AssistantSettings) {}

  private texts(locale?: string): Texts {
    return textsFor(this.ctx.settings().language, locale);
  }

  /** A REST call refused the token: the channel fails as a 4004 would make it. */
  private refused(err: unknown) {
    if (!tokenRefused(err)) return false;
    this.failed = REVOKED_SENTENCE;
    void this.gateway.stop();
    return true;
  }

  private firstTime(id: string) {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.values().next().value!);
    return true;
  }

  private registerCommands() {
    if (this.commandsSet) return;
    this.commandsSet = true;
    this.gateway.rest
      .put(`/applications/${this.o.applicationId}/commands`, { body: slashCommands(), signal: this.abort.signal })
      .catch((err: unknown) => {
        this.commandsSet = false;
        if (!this.abort.signal.aborted && !this.refused(err))
          this.ctx.log.warn({ agent: this.ctx.agent, err: (err as Error).message }, 'discord commands not set');
      });
  }

  private onMessage(m: DiscordMessagePayload) {
    if (!this.botId || !this.firstTime(m.id)) return;
    const a = addressed(m, this.botId);
    if (!a) return;
    if (!a.inGuild) this.dms.add(m.channel_id);
    const key = `${m.channel_id}:${m.author.id}`;
    const before = this.lines.get(key) ?? Promise.resolve();
    const turn = before.then(() => this.handle(m, a.text, a.name, a.inGuild));
    const tail = turn.catch((err) => {
      if (!this.refused(err))
        this.ctx.log.warn({ agent: this.ctx.agent, err: (err as Error).message }, 'discord message failed');
    });
    this.lines.set(key, tail);
    void tail.then(() => {
      if (this.lines.get(key) === tail) this.lines.delete(key);
    });
  }

  private async handle(m: DiscordMessagePayload, text: string, name: string, inGuild: boolean) {
    if (this.abort.signal.aborted) return;
    const t = this.texts();
    const replyTo = inGuild ? m.id : undefined;
    const say = (s: string) => this.sender.send(m.channel_id, s, replyTo);
    const verdict = this.admit(m.author.id, true);
    if (verdict === 'not_allowed') return void (await say(t.notAllowed));
    if (verdict === 'first_over') return void (await say(t.dailyLimit));
    if (verdict === 'over') return;
    const files = m.attachments ?? [];
    if (!text && !files.length) return void (await say(this.ctx.settings().welcomeMessage || t.welcome));
    let turn: Partial<MediaTurn> & { text: string } = { text };
    if (files.length) {
      const got = await this.readAttachments(m, text, t);
      if (!got) return;
      turn = got;
      if (got.notice) await say(got.notice);
    }
    const inbound: InboundMessage = {
      channel: 'discord',
      chat: { id: m.channel_id, type: inGuild ? 'group' : 'private' },
      session: this.session(m.channel_id),
      sender: { id: m.author.id, firstName: name },
      mentioned: true,
      text: turn.text,
      ...(turn.images ? { images: turn.images } : {}),
      ...(turn.stored ? { stored: turn.stored } : {}),
    };
    await answer(this.deps(), { channelId: m.channel_id, ...(replyTo ? { replyTo } : {}) }, inbound, t);
  }

  /**
   * The message's words and files as one turn, or undefined once the user was told why not (a
   * refusal in words, no model call).
   */
  private async readAttachments(m: DiscordMessagePayload, text: string, t: Texts): Promise<MediaTurn | undefined> {
    const say = (s: string) => this.sender.send(m.channel_id, s, m.guild_id !== undefined ? m.id : undefined);
    // Downloads and transcriptions take a while: the user sees the message was taken.
    void this.sender.typing(m.channel_id).catch(() => {});
    try {
      return await attachmentTurn(m.attachments ?? [], m.flags ?? 0, text, {
        vision: this.ctx.media.vision,
        transcriber: this.ctx.media.transcriber,
        cdn: this.cdn,
        signal: this.abort.signal,
        texts: t,
        tenant: this.ctx.agent,
        ...(this.ctx.media.documents ? { documents: this.ctx.media.documents } : {}),
      });
    } catch (err) {
      if (this.abort.signal.aborted) return undefined;
      if (err instanceof MediaRefusal) return void (await say(err.sentence));
      this.ctx.log.warn({ agent: this.ctx.agent, err: (err as Error).message }, 'discord attachments failed');
      await say(providerFailure(err) === 'credits' ? t.credits : t.failed);
      return undefined;
    }
  }

  private session(channelId: string) {
    return channelSession('discord', channelId, this.ctx.state.chatEpoch(this.ctx.agent, BigInt(channelId)));
  }

  private answerDeps: AnswerDeps | undefined;
  private deps(): AnswerDeps {
    this.answerDeps ??= {
      agent: this.ctx.agent,
      log: this.ctx.log,
      sender: this.sender,
      respond: this.ctx.respond,
      signal: this.abort.signal,
      stream: this.o.stream !== false,
    };
    return this.answerDeps;
  }

  /** The owner's access rules for a Discord user (settings.access), as on WhatsApp: listed-access.ts. */
  private admit(userId: string, counted: boolean): ScheduledAdmission {
    return admitListed(this.ctx, DISCORD_USERS, userId, counted, Date.now);
  }

  private onInteraction(i: InteractionPayload) {
    if (i.type !== 2 || !i.channel_id || !this.firstTime(i.id)) return;
    const t = this.texts(i.locale);
    let content: string;
    if (i.data?.name === 'reset') {
      if (!mayReset(i)) content = t.resetAdminsOnly;
      else {
        this.ctx.state.newChatEpoch(this.ctx.agent, BigInt(i.channel_id));
        content = t.reset;
      }
    } else content = discordHelp(t);
    // type 4: CHANNEL_MESSAGE_WITH_SOURCE; flags 64: only the user who ran it sees it.
    this.gateway.rest
      .post(`/interactions/${i.id}/${i.token}/callback`, {
        body: { type: 4, data: { content, flags: 64, allowed_mentions: { parse: [] } } },
        auth: false,
        signal: this.abort.signal,
      })
      .catch((err: unknown) => {
        if (!this.abort.signal.aborted)
          this.ctx.log.warn({ agent: this.ctx.agent, err: (err as Error).message }, 'discord command not answered');
      });
  }

  get scheduled(): Scheduled {
    this.scheduledPort ??= this.makeScheduled();
    return this.scheduledPort;
  }
  private scheduledPort: Scheduled | undefined;

  private makeScheduled(): Scheduled {
    const self = this;
    return {
      get signal() {
        return self.abort.signal;
      },
      ready: () => self.health().state === 'connected',
      chatOf: (chat) => {
        const id = idIn('discord', 'chat', chat);
        return id && /^\d{15,21}$/.test(id) ? id : undefined;
      },
      admit: (user, task) => self.admit(idIn('discord', 'user', user) ?? user, task),
      inbound: (chatId, user, text) => {
        const chat = { id: chatId, type: self.dms.has(chatId) ? 'private' : 'group' } as const;
        return scheduledTurn('discord', chat, self.session(chatId), idIn('discord', 'user', user) ?? user, text);
      },
      refusal: (why) => {
        const t = self.texts();
        return why === 'dailyLimit' ? t.dailyLimit : providerFailure(why) === 'credits' ? t.credits : t.failed;
      },
    };
  }
}
