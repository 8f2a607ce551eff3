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

export interface AgentConfig {
  name: string;
  gatewayToken: string;
  model: { provider: string; baseUrl: string; modelId: string; apiKey: string };
  telegram?: { botToken: string; apiRoot?: string; limits?: TelegramLimits };
  systemPrompt?: string;
  historyBudgetChars?: number;
  allowPrivateFetch?: boolean;
}

export const DEFAULT_HISTORY_BUDGET = 24_000;
export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful assistant. Answer concisely. Use the tools when they help: current_datetime for dates and times, calculator for arithmetic, fetch_web_page to read a public web page.';

export interface TurnRequest {
  sessionId?: string;
  /** Without a session: the whole conversation. With one: system messages and the new user turn. */
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  params: Record<string, unknown>;
  signal: AbortSignal;
}

export class Agent {
  readonly provider: ModelProvider & { close?(): void };
  readonly tools: Tool[];
  telegram: TelegramChannel | undefined;
  private readonly locks = new KeyedLock();
  private starting: Promise<void> | undefined;
  private stopped = false;

  constructor(
    readonly config: AgentConfig,
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
          reply: (sessionId, text, signal) => this.replyText(sessionId, text, signal),
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
      yield* this.run(this.withSystemPrompt(req.messages), req);
      return;
    }
    const sessionId = req.sessionId;
    const events: TurnEvent[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    let failure: unknown;
    // The lock serialises turns of one session; events are handed out as they come.
    const work = this.locks
      .run(sessionId, async () => {
        const userTurn = [...req.messages].reverse().find((m) => m.role === 'user')!;
        const history = this.store.load(this.config.name, sessionId);
        const system = req.messages.filter((m) => m.role === 'system');
        const messages = this.withSystemPrompt([...system, ...history, userTurn]);
        for await (const ev of this.run(messages, req)) {
          events.push(ev);
          wake?.();
          if (ev.type === 'done') {
            this.store.append(
              this.config.name,
              sessionId,
              [userTurn as { role: 'user'; content: string }, { role: 'assistant', content: ev.content }],
              this.config.historyBudgetChars ?? DEFAULT_HISTORY_BUDGET,
            );
          }
        }
      })
      .catch((err) => {
        failure = err;
      })
      .finally(() => {
        finished = true;
        wake?.();
      });
    for (;;) {
      while (events.length) yield events.shift()!;
      if (finished) break;
      await new Promise<void>((r) => {
        wake = r;
      });
      wake = undefined;
    }
    await work;
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

  private withSystemPrompt(messages: TurnRequest['messages']): ChatMessage[] {
    const prompt = this.config.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
    return [{ role: 'system', content: prompt }, ...messages];
  }

  private run(messages: ChatMessage[], req: TurnRequest) {
    return runTurn({
      provider: this.provider,
      modelId: this.config.model.modelId,
      messages,
      params: req.params,
      tools: this.tools,
      signal: req.signal,
      tenant: this.config.name,
    });
  }

  private async replyText(sessionId: string, text: string, signal: AbortSignal): Promise<string> {
    let answer = '';
    for await (const ev of this.turn({ sessionId, messages: [{ role: 'user', content: text }], params: {}, signal })) {
      if (ev.type === 'done') answer = ev.content;
    }
    return answer;
  }
}
