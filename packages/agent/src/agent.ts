// One assistant: its model, tools, sessions and (optionally) its Telegram channel.
import type { Logger } from 'pino';
import { OpenAiCompatibleProvider } from './model/openai-compatible.js';
import type { ModelProvider } from './model/provider.js';
import { builtinTools, type Tool } from './tools/index.js';
import { runTurn, type ChatMessage, type TurnEvent } from './turn/run-turn.js';
import type { SessionStore } from './sessions/store.js';
import { KeyedLock } from './sessions/keyed-lock.js';
// Types only: grammY (~17 MB resident) loads when the first agent with a bot starts, so a host
// without Telegram agents, and the API-only agents of serve mode, never carry it.
import type { TelegramChannel, TelegramLimits } from './channels/telegram.js';
import { AgentError } from './errors.js';
import { defaultSettings, type AssistantSettings } from '@berth/contracts/settings';
import { userData, type UserData } from './storage/user-data.js';
import type { EndUser } from './tools/end-user.js';
import { memoryTools } from './tools/memory/index.js';
import { scheduleTools } from './tools/schedule/index.js';
import { webSearchTool, type SearchTarget } from './tools/web-search/index.js';
import type { Scheduler } from './scheduler/scheduler.js';
import type { Schedule } from './storage/schedules.js';
import { foldIfNeeded, summaryMessage } from './turn/summary.js';

export interface AgentConfig {
  name: string;
  gatewayToken: string;
  model: { provider: string; baseUrl: string; modelId: string; apiKey: string };
  telegram?: { botToken: string; apiRoot?: string; limits?: TelegramLimits };
  systemPrompt?: string;
  historyBudgetChars?: number;
  allowPrivateFetch?: boolean;
  /** The owner's settings (DESIGN §7.1); defaultSettings() when absent. */
  settings?: AssistantSettings;
  /** The control plane's search gateway; without it web_search is not offered. */
  search?: SearchTarget;
}

export const DEFAULT_HISTORY_BUDGET = 24_000;
const DEFAULT_SETTINGS = defaultSettings();
export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful assistant. Answer concisely. Use the tools when they help: current_datetime for dates and times, calculator for arithmetic, fetch_web_page to read a public web page.';

export interface TurnRequest {
  sessionId?: string;
  /** Without a session: the whole conversation. With one: system messages and the new user turn. */
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  params: Record<string, unknown>;
  signal: AbortSignal;
  /** The end user (DESIGN §7.4): with one, memory is injected and the per-user tools are offered. */
  endUser?: EndUser;
  /** A scheduled task's turn: it may not schedule more. */
  scheduled?: boolean;
}

export class Agent {
  readonly provider: ModelProvider & { close?(): void };
  readonly tools: Tool[];
  telegram: TelegramChannel | undefined;
  private readonly locks = new KeyedLock();
  private starting: Promise<void> | undefined;
  private stopped = false;

  private readonly data: UserData;
  private readonly scheduler: Scheduler | undefined;

  constructor(
    readonly config: AgentConfig,
    private readonly store: SessionStore,
    private readonly log: Logger,
    provider?: ModelProvider,
    deps: { scheduler?: Scheduler } = {},
  ) {
    this.data = userData(store);
    this.scheduler = deps.scheduler;
    this.provider =
      provider ??
      new OpenAiCompatibleProvider({
        provider: config.model.provider,
        baseUrl: config.model.baseUrl,
        apiKey: config.model.apiKey,
      });
    this.tools = builtinTools({ allowPrivateFetch: config.allowPrivateFetch });
  }

  start() {
    const tg = this.config.telegram;
    if (!tg || this.starting) return;
    this.starting = import('./channels/telegram.js').then(
      ({ TelegramChannel }) => {
        if (this.stopped) return;
        this.telegram = new TelegramChannel({
          agent: this.config.name,
          botToken: tg.botToken,
          apiRoot: tg.apiRoot,
          store: this.store,
          log: this.log,
          reply: (sessionId, text, signal, who) => this.replyText(sessionId, text, signal, who),
          limits: tg.limits,
          userData: this.data,
          features: { memory: this.settings.tools.memory, reminders: this.settings.tools.reminders },
          wakeScheduler: () => this.scheduler?.wake(),
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

  health() {
    const tg = this.telegram;
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
        username: tg?.username ?? null,
        error: tg?.error ?? null,
      },
      model: { provider: this.config.model.provider, model: this.config.model.modelId },
    };
  }

  /**
   * Runs one turn. With a session, history is loaded, system messages of this call are layered
   * on top, and the new user/assistant pair is stored once the turn completes.
   */
  async *turn(req: TurnRequest): AsyncGenerator<TurnEvent> {
    if (!req.sessionId) {
      yield* this.run(this.withSystemPrompt(req.messages, req.endUser), req);
      return;
    }
    const sessionId = req.sessionId;
    const events: TurnEvent[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    let failure: unknown;
    // The lock serialises turns of one session; events are handed out as they come.
    const answered = () => {
      finished = true;
      wake?.();
    };
    // The lock serialises turns of one session; events are handed out as they come. Once the
    // answer is stored the caller is released, and the session's fold (rolling summary) runs
    // still inside the lock, so the next turn of this session waits for it and no answer does.
    void this.locks
      .run(sessionId, async () => {
        const userTurn = [...req.messages].reverse().find((m) => m.role === 'user')!;
        const summary = this.store.summary(this.config.name, sessionId);
        const history = this.store.load(this.config.name, sessionId);
        const system = req.messages.filter((m) => m.role === 'system');
        const messages = this.withSystemPrompt(
          [...(summary ? [summaryMessage(summary)] : []), ...system, ...history, userTurn],
          req.endUser,
        );
        let stored = false;
        for await (const ev of this.run(messages, req)) {
          events.push(ev);
          wake?.();
          if (ev.type === 'done') {
            this.store.append(
              this.config.name,
              sessionId,
              [userTurn as { role: 'user'; content: string }, { role: 'assistant', content: ev.content }],
              // Turns beyond historyChars are folded into the summary below, not dropped here.
              Number.POSITIVE_INFINITY,
              req.endUser?.user,
            );
            stored = true;
          }
        }
        answered();
        if (stored) await this.fold(sessionId);
      })
      .catch((err) => {
        failure = err;
      })
      .finally(answered);
    for (;;) {
      while (events.length) yield events.shift()!;
      if (finished) break;
      await new Promise<void>((r) => {
        wake = r;
      });
      wake = undefined;
    }
    if (failure) throw failure;
  }

  /** Refuses, before any model call, a session turn the session caps cannot keep. */
  admitSession(sessionId: string, userText: string) {
    const { maxSessions, maxSessionBytes, idleMs } = this.store.limits;
    const bytes = Buffer.byteLength(userText);
    if (maxSessionBytes && bytes > maxSessionBytes)
      throw new AgentError(
        'QUOTA_EXCEEDED',
        `This message is ${bytes} bytes; a session keeps at most ${maxSessionBytes} bytes of history. Shorten it, or send it without X-Assistant-Session-Id.`,
      );
    if (!this.store.admitSession(this.config.name, sessionId))
      throw new AgentError(
        'QUOTA_EXCEEDED',
        `This assistant keeps at most ${maxSessions} conversations and none has been idle for ${Math.round(idleMs / 86_400_000)} days; continue an existing X-Assistant-Session-Id or send without one.`,
      );
  }

  get settings(): AssistantSettings {
    return this.config.settings ?? DEFAULT_SETTINGS;
  }

  get historyChars(): number {
    return this.config.settings?.historyChars ?? this.config.historyBudgetChars ?? DEFAULT_HISTORY_BUDGET;
  }

  /** The persona, then the end user's memory block (one system message, bounded), then the rest. */
  private withSystemPrompt(messages: TurnRequest['messages'], who?: EndUser): ChatMessage[] {
    const prompt = this.config.systemPrompt ?? this.config.settings?.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
    const memory = who && this.settings.tools.memory ? this.data.memory.block(this.config.name, who.user) : undefined;
    return [
      { role: 'system', content: prompt },
      ...(memory ? [{ role: 'system' as const, content: memory }] : []),
      ...messages,
    ];
  }

  /** Folds turns beyond historyChars into the running summary; a failed fold trims as before. */
  private async fold(sessionId: string): Promise<void> {
    const budget = this.historyChars;
    // Its own deadline: the caller has its answer, but the session's next turn waits for this.
    const signal = AbortSignal.timeout(120_000);
    try {
      await foldIfNeeded({
        store: this.store,
        provider: this.provider,
        modelId: this.config.model.modelId,
        agent: this.config.name,
        session: sessionId,
        budgetChars: budget,
        signal,
      });
    } catch (err) {
      this.log.warn({ agent: this.config.name, err: (err as Error).message }, 'summary failed; oldest turns dropped');
      this.store.trimTo(this.config.name, sessionId, budget);
    }
  }

  /** The built-in tools, then those the settings turn on for this end user. */
  private toolsFor(req: TurnRequest): Tool[] {
    const tools = [...this.tools];
    const on = this.settings.tools;
    if (on.webSearch && this.config.search) tools.push(webSearchTool(this.config.search));
    const who = req.endUser;
    if (!who) return tools;
    if (on.memory) tools.push(...memoryTools(this.data, who));
    if (on.reminders && who.chat && this.scheduler && !req.scheduled) {
      const scheduler = this.scheduler;
      tools.push(
        ...scheduleTools({ schedules: this.data.schedules, wake: () => scheduler.wake() }, { ...who, chat: who.chat }),
      );
    }
    return tools;
  }

  private run(messages: ChatMessage[], req: TurnRequest) {
    return runTurn({
      provider: this.provider,
      modelId: this.config.model.modelId,
      messages,
      params: req.params,
      tools: this.toolsFor(req),
      signal: req.signal,
    });
  }

  private async replyText(
    sessionId: string,
    text: string,
    signal: AbortSignal,
    endUser?: EndUser,
    scheduled = false,
  ): Promise<string> {
    let answer = '';
    const messages = [{ role: 'user' as const, content: text }];
    for await (const ev of this.turn({ sessionId, messages, params: {}, signal, endUser, scheduled })) {
      if (ev.type === 'done') answer = ev.content;
    }
    return answer;
  }

  /** A due schedule: a reminder is sent as it is; a task is answered by a turn in that chat, then sent. */
  private async deliver(s: Schedule): Promise<void> {
    const tg = this.telegram;
    const chatId = Number(/^telegram:(-?\d+)$/.exec(s.chat)?.[1]);
    if (!tg || !Number.isSafeInteger(chatId)) return;
    if (!s.task) {
      await tg.sendText(chatId, `⏰ ${s.text}`);
      return;
    }
    const answer = await tg.answerScheduled(chatId, (session, signal) =>
      this.replyText(session, s.text, signal, { agent: this.config.name, user: s.user, chat: s.chat }, true),
    );
    if (answer) await tg.sendText(chatId, answer);
  }
}
