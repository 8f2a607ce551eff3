// One assistant, composed from its configuration: its model provider, its tools (from its
// settings), its conversations (core) and its channels (Telegram, and whatever channels/registry.ts
// knows). Composition only: what a turn does lives in core/, what a channel does in its folder of
// channels/; the assistant holds them as Channel and sends first through their Outbound.
import { announcePairing, decidePairing } from '../ops/pairing-notice.js';
import type { Logger } from 'pino';
import { defaultSettings, type AssistantSettings } from '@berth/contracts/settings';
import { OpenAiCompatibleProvider } from '../model/openai-compatible.js';
import type { ModelProvider } from '../model/provider.js';
import { WatchedProvider } from '../model/watched-provider.js';
import { buildTools, type Tool } from '../tools/registry.js';
import { apiSession, type SessionStore } from '../storage/sessions.js';
import { Conversation } from '../core/conversation.js';
import { accessStoreFor, type AccessStore } from '../storage/access.js';
import { DEFAULT_SYSTEM_PROMPT } from '../core/prompt.js';
import { OpenAiCompatibleTranscriber, type Transcriber } from '../model/transcriber.js';
// Types only: a channel's module (grammY, ~17 MB resident) loads when the first assistant with that
// channel starts, so a host without such assistants, and API-only serve mode, never carry it.
import type { TelegramConfig } from '../channels/telegram/index.js';
import type { Channel } from '../channels/channel.js';
import { type ChannelConfig, loadChannel } from '../channels/registry.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import { channelOfChat, deliverSchedule, readyFor } from '../scheduler/deliver.js';
import { OpenAiCompatiblePainter, OpenAiCompatibleSpeaker, type Painter, type Speaker } from '../model/media-out.js';
import type { Schedule } from '../storage/schedules.js';
import type { DocumentReader } from '../media/document-pool.js';
import { userData, type UserData } from '../storage/user-data.js';
import type { EndUser } from '../tools/end-user.js';
import { memoryTools } from '../tools/memory/index.js';
import { timezoneTool } from '../tools/timezone.js';
import { scheduleTools } from '../tools/schedule/index.js';
import type { SearchTarget } from '../tools/web-search/index.js';
import type { InboundMessage } from '../core/inbound.js';
import type { McpServerConfig, McpServerState } from '@berth/contracts/mcp';
// Types only: the MCP SDK loads with the first assistant that has a server.
import type { McpServers } from '../tools/mcp/servers.js';
import type { UpdateOutcome } from '../admin/update-routes.js';

export interface AssistantConfig {
  readonly name: string;
  gatewayToken: string;
  model: {
    provider: string;
    baseUrl: string;
    modelId: string;
    apiKey: string;
    /** DESIGN §7.3: "vision" when the model reads images (from the control plane's catalog). */
    capabilities?: string[];
    /** Voice notes are transcribed with this model at `{baseUrl}/audio/transcriptions`. */
    transcriptionModel?: string;
  };
  /** Its Telegram bot: the older, shorter form of a `{ type: "telegram", … }` entry of `channels`. */
  telegram?: Omit<TelegramConfig, 'type'>;
  /** Its channels (channels/registry.ts), each started beside the others. */
  channels?: ChannelConfig[];
  /** The owner's settings (DESIGN §7.1); absent: the defaults, with the two older fields below. */
  settings?: AssistantSettings;
  /** Older form of settings.systemPrompt, used only when no settings are given. */
  systemPrompt?: string;
  /** Older form of settings.historyChars, used only when no settings are given. */
  historyBudgetChars?: number;
  allowPrivateFetch?: boolean;
  /** The control plane's search gateway; without it web_search is not offered. */
  search?: SearchTarget;
  /** The owner's MCP servers (DESIGN §9.2), headers included; replaced live by useMcpServers. */
  mcpServers?: McpServerConfig[];
  /** MCP_ALLOW_INSECURE: http and private addresses allowed (development and tests). */
  allowInsecureMcp?: boolean;
}
/** The name the agent's modules used before the §8 layout. */
export type AgentConfig = AssistantConfig;

export const DEFAULT_HISTORY_BUDGET = 24_000;
export { DEFAULT_SYSTEM_PROMPT };

export class Assistant {
  readonly provider: WatchedProvider;
  readonly conversation: Conversation;
  /** Voice notes become words through the provider (or the gateway); none without a transcription model. */
  readonly transcriber: Transcriber | undefined;
  /** The running channels, in the order of the configuration (empty until their modules load). */
  readonly channels: Channel[] = [];
  /** DESIGN §9.5: voice replies and generate_image, where the catalog gives the provider speech / images. */
  readonly speaker: Speaker | undefined;
  readonly painter: Painter | undefined;
  private settingsNow: AssistantSettings;
  private toolsNow: Tool[];
  private starting: Promise<void> | undefined;
  private stopped = false;
  private readonly data: UserData;
  private readonly scheduler: Scheduler | undefined;
  /** The host's document pool unless a test holds documents in a stand-in. */
  private readonly documents: DocumentReader | undefined;
  private mcp: McpServers | undefined;
  private mcpApplied: Promise<void> = Promise.resolve();

  constructor(
    readonly config: AssistantConfig,
    private readonly store: SessionStore,
    private readonly log: Logger,
    provider?: ModelProvider,
    deps: {
      scheduler?: Scheduler;
      transcriber?: Transcriber;
      documents?: DocumentReader;
      speaker?: Speaker;
      painter?: Painter;
    } = {},
  ) {
    this.data = userData(store);
    this.scheduler = deps.scheduler;
    this.documents = deps.documents;
    this.provider = new WatchedProvider(
      provider ??
        new OpenAiCompatibleProvider({
          provider: config.model.provider,
          baseUrl: config.model.baseUrl,
          apiKey: config.model.apiKey,
        }),
    );
    const m = config.model;
    this.transcriber =
      deps.transcriber ??
      (m.transcriptionModel
        ? new OpenAiCompatibleTranscriber({
            provider: m.provider,
            baseUrl: m.baseUrl,
            apiKey: m.apiKey,
            model: m.transcriptionModel,
          })
        : undefined);
    const out = { provider: m.provider, baseUrl: m.baseUrl, apiKey: m.apiKey };
    this.speaker = deps.speaker ?? (m.capabilities?.includes('speech') ? new OpenAiCompatibleSpeaker(out) : undefined);
    this.painter = deps.painter ?? (m.capabilities?.includes('images') ? new OpenAiCompatiblePainter(out) : undefined);
    this.settingsNow = config.settings ?? {
      ...defaultSettings(),
      systemPrompt: config.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    };
    this.toolsNow = buildTools(this.settingsNow.tools, this.toolOptions());
    const historyChars = config.settings ? undefined : (config.historyBudgetChars ?? DEFAULT_HISTORY_BUDGET);
    this.conversation = new Conversation({
      name: config.name,
      provider: this.provider,
      modelId: config.model.modelId,
      store,
      current: (preview) =>
        preview
          ? {
              persona: preview.systemPrompt,
              tools: buildTools(preview.tools, this.toolOptions()),
              historyChars: preview.historyChars,
              memory: preview.tools.memory,
              timezone: preview.timezone,
            }
          : {
              persona: this.settingsNow.systemPrompt,
              tools: this.toolsNow,
              historyChars: historyChars ?? this.settingsNow.historyChars,
              memory: this.settingsNow.tools.memory,
              timezone: this.settingsNow.timezone,
              mcp: this.mcp?.tools,
            },
      perUser: {
        memory: this.data.memory,
        prefs: this.data.prefs,
        tools: (who, inbound) => this.userTools(who, inbound),
      },
      log,
    });
    if (config.mcpServers?.length) void this.useMcpServers(config.mcpServers);
  }

  /**
   * The owner's MCP servers, whole (an empty list removes them): the next turn offers their tools.
   * Resolves once the list is in place; connecting goes on (the view shows "connecting").
   */
  useMcpServers(list: McpServerConfig[]): Promise<void> {
    const next = this.mcpApplied.then(async () => {
      if (this.stopped || (!this.mcp && list.length === 0)) return;
      if (!this.mcp) {
        const { McpServers } = await import('../tools/mcp/servers.js');
        const { mcpPolicy } = await import('../tools/mcp/policy.js');
        if (this.stopped) return;
        this.mcp = new McpServers({
          policy: mcpPolicy(this.config.allowInsecureMcp),
          vision: () => this.vision,
          reserved: () => new Set(this.toolsNow.map((t) => t.name)),
        });
      }
      await this.mcp.apply(list);
    });
    this.mcpApplied = next.catch(() => {});
    return next;
  }

  /** Each MCP server's status and tools (never its headers), and the calls made. */
  mcpView(): { servers: McpServerState[]; calls: { ok: number; failed: number } } {
    return { servers: this.mcp?.states() ?? [], calls: { ...(this.mcp?.calls ?? { ok: 0, failed: 0 }) } };
  }

  /** Resolves once every MCP server has connected or failed. */
  async mcpSettled() {
    await this.mcpApplied;
    await this.mcp?.settled();
  }

  private toolOptions() {
    return {
      allowPrivateFetch: this.config.allowPrivateFetch,
      search: this.config.search,
      painter: this.painter,
      imagesPerTurn: this.settingsNow?.imagesPerTurn,
    };
  }

  /** The tools bound to one end user, as the settings allow (memory; reminders where a chat can receive them). */
  private userTools(who: EndUser, inbound: InboundMessage) {
    const settings = inbound.settings ?? this.settingsNow;
    const on = settings.tools;
    const tools = on.memory ? memoryTools(this.data, who) : [];
    tools.push(timezoneTool(this.data.prefs, who));
    const scheduler = this.scheduler;
    const zone = () => this.data.prefs.timezone(who.agent, who.user) ?? settings.timezone ?? undefined;
    if (on.reminders && who.chat && scheduler && !inbound.scheduled)
      tools.push(
        ...scheduleTools(
          { schedules: this.data.schedules, wake: () => scheduler.wake(), zone, refusal: this.refusalIn(who.chat) },
          { ...who, chat: who.chat },
        ),
      );
    return tools;
  }

  /** The chat's channel's answer to "could a reminder reach this chat at…?" (channels/channel.ts refuseAt). */
  private refusalIn(chat: string) {
    return (at: number, repeats: boolean) => {
      const target = channelOfChat(this.channels, chat);
      return target?.channel.scheduled.refuseAt?.(target.chatId, at, repeats);
    };
  }

  /** Every end user's pending reminders and tasks, soonest first: the owner's view (admin/reminder-routes.ts). */
  pendingReminders(): Schedule[] {
    return this.data.schedules.listAll(this.config.name);
  }

  /** The owner cancels one reminder (any end user's) or, without an id, all of them; how many. */
  cancelReminders(id?: string): number {
    const schedules = this.data.schedules;
    const n =
      id === undefined ? schedules.cancelAll(this.config.name) : Number(schedules.cancelAny(this.config.name, id));
    // The timer may sleep until a cancelled one; it looks for the next again.
    if (n > 0) this.scheduler?.wake();
    return n;
  }

  /** Pairing codes and daily counts of this host's data directory (storage/access.ts). */
  get access(): AccessStore {
    return accessStoreFor(this.store.dataDir);
  }

  get settings(): AssistantSettings {
    return this.settingsNow;
  }
  get tools(): Tool[] {
    return this.toolsNow;
  }
  /** The model reads images (its catalog entry says "vision"). */
  get vision(): boolean {
    return this.config.model.capabilities?.includes('vision') === true;
  }

  /** New settings for the next turn (prompt, tools, limits), without restarting any channel. */
  /** An API session's stored messages (the playground restores its transcript from them). */
  transcript(sessionId: string): Array<{ role: string; content: string }> {
    return this.store.load(this.config.name, apiSession(sessionId));
  }

  /** Forgets an API session; whether it existed. Telegram chats are never reachable here. */
  forgetSession(sessionId: string): boolean {
    return this.store.forgetSession(this.config.name, apiSession(sessionId));
  }

  /**
   * A settings change on a running assistant (DESIGN §7.1): the persona, the tool switches, the
   * access rules and the limits are read per turn and per update, so swapping the document is the
   * whole change. Settings carry no credentials, so the Telegram channel keeps polling: no update is
   * fetched twice or skipped, and a turn already running finishes with what it started with.
   * A channel restarts only through PUT /agents/{name} with new credentials (runtime/host.ts).
   */
  useSettings(settings: AssistantSettings) {
    this.settingsNow = settings;
    this.toolsNow = buildTools(settings.tools, this.toolOptions());
    for (const channel of this.channels) channel.applySettings(settings);
  }

  /**
   * The owner set or removed a channel beside Telegram (DESIGN §9.1: live, within 5 s): a channel
   * whose entry changed is stopped and started again with it, a removed one stopped, a new one
   * started; Telegram's bot and an unchanged channel keep running. `entries` is the whole list
   * beside Telegram.
   */
  async useChannels(entries: ChannelConfig[]): Promise<void> {
    await this.starting;
    if (this.stopped) return;
    const others = entries.filter((c) => c.type !== 'telegram');
    const before = new Map(this.channelConfigs().map((c) => [c.type, JSON.stringify(c)]));
    const keep = (this.config.channels ?? []).filter((c) => c.type === 'telegram');
    this.config.channels = [...keep, ...others];
    const wanted = new Map(others.map((c) => [c.type, c]));
    for (const channel of [...this.channels]) {
      if (channel.type === 'telegram') continue;
      const want = wanted.get(channel.type);
      if (want && before.get(channel.type) === JSON.stringify(want)) {
        wanted.delete(channel.type);
        continue;
      }
      this.channels.splice(this.channels.indexOf(channel), 1);
      await channel.stop();
    }
    // An assistant that had no channel at all starts as at its first start (scheduler, pairing notices).
    if (!this.starting) return this.start();
    await Promise.all([...wanted.values()].map((c) => this.startChannel(c)));
  }

  /** Every channel the configuration asks for, Telegram's shorter form included. */
  private channelConfigs(): ChannelConfig[] {
    const tg = this.config.telegram;
    return [...(tg ? [{ type: 'telegram' as const, ...tg }] : []), ...(this.config.channels ?? [])];
  }

  /** Removes this assistant's pairing-notice listener (ops/pairing-notice.ts). */
  private unlistenPairing: (() => void) | undefined;

  start() {
    const configs = this.channelConfigs();
    if (!configs.length || this.starting) return;
    this.starting = Promise.all(configs.map((c) => this.startChannel(c))).then(() => {
      // No channel to send through (none loaded): its schedules wait for the next start.
      if (this.stopped || !this.channels.length) return;
      // New pairing codes reach the owner through the control plane (ops/pairing-notice.ts).
      this.unlistenPairing ??= this.access.onPairing(this.config.name, (p) => {
        void announcePairing(this.config.model, p, this.log, this.config.name);
        for (const c of this.channels) c.pairingRequested?.(p);
      });
      this.scheduler?.register(this.config.name, {
        ready: (s) => readyFor(this.channels, s),
        deliver: (s) =>
          deliverSchedule(
            {
              agent: this.config.name,
              channels: () => this.channels,
              respond: (inbound, signal) => this.conversation.respond(inbound, signal),
              remindersOn: () => this.settingsNow.tools.reminders,
              log: this.log,
            },
            s,
          ),
      });
    });
  }

  /** Loads the channel's module (once per host), makes the channel and starts it. */
  private async startChannel(config: ChannelConfig) {
    try {
      const module = await loadChannel(config.type);
      if (!module) throw new Error(`no channel of type "${config.type}"`);
      if (this.stopped) return;
      const channel = module.createChannel(config, {
        agent: this.config.name,
        log: this.log,
        respond: (inbound, signal) => this.conversation.respond(inbound, signal),
        settings: () => this.settingsNow,
        access: this.access,
        userData: this.data,
        state: this.store,
        wakeScheduler: () => this.scheduler?.wake(),
        decidePairing: (code, decision) => decidePairing(this.config.model, code, decision, this.log, this.config.name),
        media: {
          vision: this.vision,
          transcriber: this.transcriber,
          ...(this.documents ? { documents: this.documents } : {}),
          ...(this.speaker ? { speaker: this.speaker } : {}),
        },
      });
      this.channels.push(channel);
      channel.start();
    } catch (err) {
      this.log.error({ agent: this.config.name, err: (err as Error).message }, `${config.type} channel failed to load`);
    }
  }

  async stop() {
    this.stopped = true;
    this.unlistenPairing?.();
    this.scheduler?.unregister(this.config.name);
    await this.starting;
    await Promise.all(this.channels.map((c) => c.stop()));
    // A reminder whose send the stop cut short goes back to the store before anyone reads it.
    await this.scheduler?.settled(this.config.name);
    await this.mcpApplied;
    await this.mcp?.close();
    this.provider.close?.();
  }

  /**
   * An update the control plane's webhook ingress accepted (admin/update-routes.ts), handed to the
   * channel of that type: "not_ready" lets the control plane deliver it again later.
   */
  acceptUpdate(type: string, update: unknown): UpdateOutcome {
    const channel = this.channel(type);
    if (!channel?.acceptUpdate) return this.channelConfigs().some((c) => c.type === type) ? 'not_ready' : 'no_channel';
    return channel.acceptUpdate(update) ? 'taken' : 'not_ready';
  }

  /** The channel of that type, once it runs. */
  channel(type: string): Channel | undefined {
    return this.channels.find((c) => c.type === type);
  }

  /** How many channels the configuration asks for (no array made: metrics read every state per scrape). */
  private get wanted(): number {
    return (this.config.telegram ? 1 : 0) + (this.config.channels?.length ?? 0);
  }

  /** Whether the configuration has the spec's own Telegram bot (no array made: read per scrape). */
  private get wantsTelegram(): boolean {
    if (this.config.telegram) return true;
    for (const c of this.config.channels ?? []) if (c.type === 'telegram') return true;
    return false;
  }

  /**
   * The channels' state, the worst first: failed, then connecting (a channel still loading counts),
   * then stopped, then connected; "disabled" without any channel (an API-only assistant). With the
   * spec's Telegram bot, that bot alone decides it: a WhatsApp token Meta revoked, or a Discord bot
   * missing its intent, shows in that channel's own status (the channel list), and never makes the
   * assistant unready, which would fail its deploys and take its Telegram bot down with it.
   */
  get state(): string {
    const telegramOnly = this.wantsTelegram;
    const wanted = telegramOnly ? 1 : this.wanted;
    if (!wanted) return 'disabled';
    let seen = 0;
    let worst = 'connected';
    for (const c of this.channels) {
      if (telegramOnly && c.type !== 'telegram') continue;
      seen++;
      const s = c.health().state;
      if (s === 'failed') return 'failed';
      if (s === 'connecting') worst = 'connecting';
      else if (s === 'stopped' && worst === 'connected') worst = 'stopped';
    }
    return seen < wanted ? 'connecting' : worst;
  }

  /** The first channel's trouble, in words its owner can act on. */
  private channelError(): string | undefined {
    for (const c of this.channels) {
      const error = c.health().error;
      if (error) return error;
    }
    return undefined;
  }

  /** What keeps the assistant from its users while it runs, in words its owner can act on. */
  trouble(): string | undefined {
    return this.channelError() ?? this.provider.problem;
  }

  health() {
    const state = this.state;
    const ready = this.wanted === 0 || state === 'connected';
    const error = this.channelError();
    const tg = this.channel('telegram');
    const tgState = tg?.health().state ?? (this.wantsTelegram ? 'connecting' : 'disabled');
    const others = this.channels.filter((c) => c !== tg);
    return {
      name: this.config.name,
      ready,
      status: ready ? 'ready' : state === 'failed' ? 'failed' : 'starting',
      // What keeps the assistant from its users while it runs: a channel's trouble first (no
      // message reaches it at all), else a model key the provider rejects.
      reason: error ?? this.provider.problem ?? null,
      telegram: {
        state: tgState,
        connected: tgState === 'connected',
        username: tg?.details().username ?? null,
        error: tg?.health().error ?? null,
      },
      // Only with channels beyond Telegram: 100,000 Telegram-only health objects stay as small as they were.
      ...(others.length
        ? {
            channels: this.channels.map((c) => {
              const h = c.health();
              return { type: c.type, state: h.state, error: h.error ?? null, details: c.details() };
            }),
          }
        : {}),
      model: {
        provider: this.config.model.provider,
        model: this.config.model.modelId,
        error: this.provider.problem ?? null,
      },
    };
  }
}
