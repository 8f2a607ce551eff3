// One assistant, composed from its configuration: its model provider, its tools (from its
// settings), its conversations (core) and, when it has a bot token, its Telegram channel.
// Composition only: what a turn does lives in core/, what Telegram does in channels/telegram/.
import type { Logger } from 'pino';
import { defaultSettings, type AssistantSettings } from '@berth/contracts/settings';
import { OpenAiCompatibleProvider } from '../model/openai-compatible.js';
import type { ModelProvider } from '../model/provider.js';
import { buildTools, type Tool } from '../tools/registry.js';
import type { SessionStore } from '../storage/sessions.js';
import { Conversation } from '../core/conversation.js';
import { accessStoreFor, type AccessStore } from '../storage/access.js';
import { DEFAULT_SYSTEM_PROMPT } from '../core/prompt.js';
// Types only: grammY (~17 MB resident) loads when the first assistant with a bot starts, so a host
// without Telegram assistants, and the API-only assistants of serve mode, never carry it.
import type { TelegramChannel, TelegramLimits } from '../channels/telegram/bot.js';

export interface AssistantConfig {
  name: string;
  gatewayToken: string;
  model: { provider: string; baseUrl: string; modelId: string; apiKey: string };
  telegram?: { botToken: string; apiRoot?: string; limits?: TelegramLimits };
  /** The owner's settings (DESIGN §7.1); absent: the defaults, with the two older fields below. */
  settings?: AssistantSettings;
  /** Older form of settings.systemPrompt, used only when no settings are given. */
  systemPrompt?: string;
  /** Older form of settings.historyChars, used only when no settings are given. */
  historyBudgetChars?: number;
  allowPrivateFetch?: boolean;
}
/** The name the agent's modules used before the §8 layout. */
export type AgentConfig = AssistantConfig;

export const DEFAULT_HISTORY_BUDGET = 24_000;
export { DEFAULT_SYSTEM_PROMPT };

export class Assistant {
  readonly provider: ModelProvider & { close?(): void };
  readonly conversation: Conversation;
  telegram: TelegramChannel | undefined;
  private settingsNow: AssistantSettings;
  private toolsNow: Tool[];
  private starting: Promise<void> | undefined;
  private stopped = false;

  constructor(
    readonly config: AssistantConfig,
    private readonly store: SessionStore,
    private readonly log: Logger,
    provider?: ModelProvider,
  ) {
    this.provider =
      provider ??
      new OpenAiCompatibleProvider({
        provider: config.model.provider,
        baseUrl: config.model.baseUrl,
        apiKey: config.model.apiKey,
      });
    this.settingsNow = config.settings ?? {
      ...defaultSettings(),
      systemPrompt: config.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    };
    this.toolsNow = buildTools(this.settingsNow.tools, { allowPrivateFetch: config.allowPrivateFetch });
    const historyChars = config.settings ? undefined : (config.historyBudgetChars ?? DEFAULT_HISTORY_BUDGET);
    this.conversation = new Conversation({
      name: config.name,
      provider: this.provider,
      modelId: config.model.modelId,
      store,
      current: () => ({
        persona: this.settingsNow.systemPrompt,
        tools: this.toolsNow,
        historyChars: historyChars ?? this.settingsNow.historyChars,
      }),
    });
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

  /** New settings for the next turn (prompt, tools, limits), without restarting any channel. */
  useSettings(settings: AssistantSettings) {
    this.settingsNow = settings;
    this.toolsNow = buildTools(settings.tools, { allowPrivateFetch: this.config.allowPrivateFetch });
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
        });
        this.telegram.start();
      },
      (err: Error) => this.log.error({ agent: this.config.name, err: err.message }, 'telegram channel failed to load'),
    );
  }

  async stop() {
    this.stopped = true;
    await this.starting;
    await this.telegram?.stop();
    this.provider.close?.();
  }

  health() {
    const tg = this.telegram?.health();
    const wantsTelegram = this.config.telegram !== undefined;
    const ready = !wantsTelegram || tg?.state === 'connected';
    const state = tg?.state ?? (wantsTelegram ? 'connecting' : 'disabled');
    return {
      name: this.config.name,
      ready,
      status: ready ? 'ready' : state === 'failed' ? 'failed' : 'starting',
      reason: tg?.error ?? null,
      telegram: {
        state,
        connected: state === 'connected',
        username: this.telegram?.username ?? null,
        error: tg?.error ?? null,
      },
      model: { provider: this.config.model.provider, model: this.config.model.modelId },
    };
  }
}
