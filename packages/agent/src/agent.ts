// One assistant: its model, tools, sessions and (optionally) its Telegram channel.
import type { Logger } from 'pino';
import { OpenAiCompatibleProvider } from './model/openai-compatible.js';
import type { ModelProvider } from './model/provider.js';
import { builtinTools, type Tool } from './tools/index.js';
import { runTurn, type ChatMessage, type TurnEvent } from './turn/run-turn.js';
import type { SessionStore } from './sessions/store.js';
import { KeyedLock } from './sessions/keyed-lock.js';
import { TelegramChannel } from './channels/telegram.js';
import { AgentError } from './errors.js';

export interface AgentConfig {
  name: string;
  gatewayToken: string;
  model: { provider: string; baseUrl: string; modelId: string; apiKey: string };
  telegram?: { botToken: string; apiRoot?: string };
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
  readonly telegram: TelegramChannel | undefined;
  private readonly locks = new KeyedLock();

  constructor(
    readonly config: AgentConfig,
    private readonly store: SessionStore,
    log: Logger,
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
    if (config.telegram) {
      this.telegram = new TelegramChannel({
        agent: config.name,
        botToken: config.telegram.botToken,
        apiRoot: config.telegram.apiRoot,
        store,
        log,
        reply: (sessionId, text, signal) => this.replyText(sessionId, text, signal),
      });
    }
  }

  start() {
    this.telegram?.start();
  }

  async stop() {
    await this.telegram?.stop();
    this.provider.close?.();
  }

  health() {
    const tg = this.telegram;
    const ready = !tg || tg.state === 'connected';
    return {
      name: this.config.name,
      ready,
      status: ready ? 'ready' : tg?.state === 'failed' ? 'failed' : 'starting',
      reason: tg?.error ?? null,
      telegram: tg
        ? {
            state: tg.state,
            connected: tg.state === 'connected',
            username: tg.username ?? null,
            error: tg.error ?? null,
          }
        : { state: 'disabled', connected: false, username: null, error: null },
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
