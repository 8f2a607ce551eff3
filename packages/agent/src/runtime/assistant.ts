// One assistant, composed from its configuration: its model provider, its tools (from its
// settings), its conversations (core) and, when it has a bot token, its Telegram channel.
// Composition only: what a turn does lives in core/, what Telegram does in channels/telegram/.
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
// Types only: grammY (~17 MB resident) loads when the first assistant with a bot starts, so a host
// without Telegram assistants, and the API-only assistants of serve mode, never carry it.
import type { TelegramChannel, TelegramLimits } from '../channels/telegram/bot.js';
import type { LongPollTiming } from '../channels/telegram/polling.js';
import type { DeliveryOutcome, Scheduler } from '../scheduler/scheduler.js';
import type { Schedule } from '../storage/schedules.js';
import type { DocumentReader } from '../media/document-pool.js';
import { userData, type UserData } from '../storage/user-data.js';
import type { EndUser } from '../tools/end-user.js';
import { telegramChatId } from '../tools/end-user.js';
import { memoryTools } from '../tools/memory/index.js';
import { scheduleTools } from '../tools/schedule/index.js';
import type { SearchTarget } from '../tools/web-search/index.js';
import type { InboundMessage } from '../core/inbound.js';
import { providerFailure } from '../core/events.js';
import type { UpdateOutcome } from '../admin/update-routes.js';

export interface AssistantConfig {
  name: string;
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
  /** `stream` false: no previews while an answer is written (TELEGRAM_STREAMING=false). */
  telegram?: {
    botToken: string;
    apiRoot?: string;
    limits?: TelegramLimits;
    stream?: boolean;
    /** The long poll's timing (TELEGRAM_POLL_TIMEOUT_SECONDS; tests shorten it). */
    longPoll?: Partial<LongPollTiming>;
    /** TELEGRAM_DELIVERY=webhook on the control plane: where Telegram POSTs, and its secret_token. */
    webhook?: { url: string; secretToken: string };
  };
  /** The owner's settings (DESIGN §7.1); absent: the defaults, with the two older fields below. */
  settings?: AssistantSettings;
  /** Older form of settings.systemPrompt, used only when no settings are given. */
  systemPrompt?: string;
  /** Older form of settings.historyChars, used only when no settings are given. */
  historyBudgetChars?: number;
  allowPrivateFetch?: boolean;
  /** The control plane's search gateway; without it web_search is not offered. */
  search?: SearchTarget;
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
  telegram: TelegramChannel | undefined;
  private settingsNow: AssistantSettings;
  private toolsNow: Tool[];
  private starting: Promise<void> | undefined;
  private stopped = false;
  private readonly data: UserData;
  private readonly scheduler: Scheduler | undefined;
  /** The host's document pool unless a test holds documents in a stand-in. */
  private readonly documents: DocumentReader | undefined;

  constructor(
    readonly config: AssistantConfig,
    private readonly store: SessionStore,
    private readonly log: Logger,
    provider?: ModelProvider,
    deps: { scheduler?: Scheduler; transcriber?: Transcriber; documents?: DocumentReader } = {},
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
            }
          : {
              persona: this.settingsNow.systemPrompt,
              tools: this.toolsNow,
              historyChars: historyChars ?? this.settingsNow.historyChars,
              memory: this.settingsNow.tools.memory,
            },
      perUser: { memory: this.data.memory, tools: (who, inbound) => this.userTools(who, inbound) },
      log,
    });
  }

  private toolOptions() {
    return { allowPrivateFetch: this.config.allowPrivateFetch, search: this.config.search };
  }

  /** The tools bound to one end user, as the settings allow (memory; reminders where a chat can receive them). */
  private userTools(who: EndUser, inbound: InboundMessage) {
    const on = (inbound.settings ?? this.settingsNow).tools;
    const tools = on.memory ? memoryTools(this.data, who) : [];
    const scheduler = this.scheduler;
    if (on.reminders && who.chat && scheduler && !inbound.scheduled)
      tools.push(
        ...scheduleTools({ schedules: this.data.schedules, wake: () => scheduler.wake() }, { ...who, chat: who.chat }),
      );
    return tools;
  }

  /** A due schedule: a reminder is sent as it is; a task is answered by a turn in that chat, then sent. */
  private async deliver(s: Schedule): Promise<DeliveryOutcome> {
    const tg = this.telegram;
    const chatId = telegramChatId(s.chat);
    if (!tg || chatId === undefined) return 'skipped';
    // The owner switched reminders off: due occurrences pass silently (DESIGN §7.1 tools switch).
    if (!this.settingsNow.tools.reminders) return 'skipped';
    // The owner's access rules hold for scheduled turns too, before any model call (decision 0024).
    const admitted = tg.admitScheduled(Number(s.user.replace(/^tg:/, '')), s.task);
    if (admitted === 'first_over') {
      await tg.taskRefused(chatId, s.text, 'dailyLimit');
      return 'refused';
    }
    if (admitted !== 'ok') return 'skipped';
    if (!s.task) {
      await tg.sendText(String(chatId), `⏰ ${s.text}`);
      return 'sent';
    }
    let answer = '';
    const inbound = tg.scheduledInbound(chatId, s.user.replace(/^tg:/, ''), s.text);
    try {
      for await (const ev of this.conversation.respond(inbound, tg.signal)) {
        if (ev.type === 'error') throw ev.error;
        if (ev.type === 'done') answer = ev.content;
      }
    } catch (err) {
      // The assistant stopped or moved mid-turn: nothing to tell on a closed channel.
      if (tg.signal.aborted) throw err;
      // Refused (credits) or failed: told once, not retried (decision 0024, "a refused task").
      this.log.warn({ agent: this.config.name, schedule: s.id, err: (err as Error).message }, 'scheduled task failed');
      await tg.taskRefused(chatId, s.text, err as Error);
      return providerFailure(err) === 'credits' ? 'refused' : 'failed';
    }
    if (!answer) return 'skipped';
    await tg.sendText(String(chatId), answer);
    return 'sent';
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
    // Memory and reminders have commands: the / menu follows their switches (and the language).
    this.telegram?.refreshMenu();
  }

  start() {
    const tg = this.config.telegram;
    if (!tg || this.starting) return;
    this.starting = import('../channels/telegram/bot.js').then(
      ({ TelegramChannel }) => {
        if (this.stopped) return;
        this.telegram = new TelegramChannel({
          agent: this.config.name,
          botToken: tg.botToken,
          apiRoot: tg.apiRoot,
          state: this.store,
          log: this.log,
          respond: (inbound, signal) => this.conversation.respond(inbound, signal),
          settings: () => this.settingsNow,
          access: this.access,
          limits: tg.limits,
          userData: this.data,
          wakeScheduler: () => this.scheduler?.wake(),
          media: {
            vision: this.vision,
            transcriber: this.transcriber,
            ...(this.documents ? { documents: this.documents } : {}),
          },
          stream: tg.stream !== false,
          longPoll: tg.longPoll,
          webhook: tg.webhook,
        });
        this.telegram.start();
        this.scheduler?.register(this.config.name, {
          ready: () => this.telegram?.state === 'connected',
          deliver: (s) => this.deliver(s),
        });
      },
      (err: Error) => this.log.error({ agent: this.config.name, err: err.message }, 'telegram channel failed to load'),
    );
  }

  async stop() {
    this.stopped = true;
    this.scheduler?.unregister(this.config.name);
    await this.starting;
    await this.telegram?.stop();
    this.provider.close?.();
  }

  /** A webhook update the control plane's ingress accepted (admin/update-routes.ts), to its channel. */
  acceptUpdate(channel: string, update: unknown): UpdateOutcome {
    if (channel !== 'telegram' || !this.config.telegram) return 'no_channel';
    return this.telegram?.handleUpdate(update as Parameters<TelegramChannel['handleUpdate']>[0])
      ? 'taken'
      : 'not_ready';
  }

  /** The Telegram channel's state; "disabled" without a bot. */
  get state(): string {
    return this.telegram?.state ?? (this.config.telegram !== undefined ? 'connecting' : 'disabled');
  }

  /** What keeps the assistant from its users while it runs, in words its owner can act on. */
  trouble(): string | undefined {
    return this.telegram?.health().error ?? this.provider.problem;
  }

  health() {
    const tg = this.telegram?.health();
    const wantsTelegram = this.config.telegram !== undefined;
    const ready = !wantsTelegram || tg?.state === 'connected';
    const state = this.state;
    return {
      name: this.config.name,
      ready,
      status: ready ? 'ready' : state === 'failed' ? 'failed' : 'starting',
      // What keeps the assistant from its users while it runs: Telegram's trouble first (no
      // message reaches it at all), else a model key the provider rejects.
      reason: tg?.error ?? this.provider.problem ?? null,
      telegram: {
        state,
        connected: state === 'connected',
        username: this.telegram?.username ?? null,
        error: tg?.error ?? null,
      },
      model: {
        provider: this.config.model.provider,
        model: this.config.model.modelId,
        error: this.provider.problem ?? null,
      },
    };
  }
}
