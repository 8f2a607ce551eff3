// One assistant's conversations, channel-agnostic: respond() runs a turn for an inbound message
// and yields its events as they come. With a session it serialises the session's turns, loads its
// history and stores the new user/assistant pair once the turn completes.
import type { ModelProvider } from '../model/provider.js';
import type { SessionStore } from '../storage/sessions.js';
import type { Tool } from '../tools/tool.js';
import { AgentError } from '../errors.js';
import type { ChatMessage, TurnEvent } from './events.js';
import type { InboundMessage } from './inbound.js';
import { KeyedLock } from './keyed-lock.js';
import { withPersona } from './prompt.js';
import { runTurn } from './turn.js';

export interface ConversationDeps {
  /** The assistant's name: its key in the store. */
  name: string;
  provider: ModelProvider;
  modelId: string;
  store: Pick<SessionStore, 'load' | 'append' | 'admitSession' | 'limits'>;
  /** Read at every turn, so new settings apply to the next model call. */
  current(): { persona: string; tools: Tool[]; historyChars: number };
}

export class Conversation {
  private readonly locks = new KeyedLock();

  constructor(private readonly d: ConversationDeps) {}

  /**
   * Runs one turn. A failure is the last event (`error`), never a throw; an abort by `signal`
   * ends the events early.
   */
  async *respond(inbound: InboundMessage, signal: AbortSignal): AsyncGenerator<TurnEvent> {
    if (!inbound.session) {
      const messages = inbound.transcript ?? [
        ...(inbound.system ?? []).map((content) => ({ role: 'system' as const, content })),
        { role: 'user' as const, content: inbound.text },
      ];
      yield* this.guarded(this.run(messages, inbound, signal));
      return;
    }
    const session = inbound.session;
    const events: TurnEvent[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    // The lock serialises turns of one session; events are handed out as they come.
    const work = this.locks
      .run(session, async () => {
        const userTurn = { role: 'user' as const, content: inbound.text };
        const history = this.d.store.load(this.d.name, session);
        const system = (inbound.system ?? []).map((content) => ({ role: 'system' as const, content }));
        for await (const ev of this.guarded(this.run([...system, ...history, userTurn], inbound, signal))) {
          events.push(ev);
          wake?.();
          if (ev.type === 'done') {
            this.d.store.append(
              this.d.name,
              session,
              [userTurn, { role: 'assistant', content: ev.content }],
              this.d.current().historyChars,
            );
          }
        }
      })
      .catch((err: unknown) => {
        events.push({ type: 'error', error: err instanceof Error ? err : new Error(String(err)) });
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
    while (events.length) yield events.shift()!;
  }

  /** Refuses, before any model call, a session turn the session caps cannot keep. */
  admitSession(session: string, userText: string) {
    const { maxSessions, maxSessionBytes, idleMs } = this.d.store.limits;
    const bytes = Buffer.byteLength(userText);
    if (maxSessionBytes && bytes > maxSessionBytes)
      throw new AgentError(
        'QUOTA_EXCEEDED',
        `This message is ${bytes} bytes; a session keeps at most ${maxSessionBytes} bytes of history. Shorten it, or send it without X-Assistant-Session-Id.`,
      );
    if (!this.d.store.admitSession(this.d.name, session))
      throw new AgentError(
        'QUOTA_EXCEEDED',
        `This assistant keeps at most ${maxSessions} conversations and none has been idle for ${Math.round(idleMs / 86_400_000)} days; continue an existing X-Assistant-Session-Id or send without one.`,
      );
  }

  private run(messages: ChatMessage[], inbound: InboundMessage, signal: AbortSignal) {
    const now = this.d.current();
    return runTurn({
      provider: this.d.provider,
      modelId: this.d.modelId,
      messages: withPersona({ persona: now.persona }, messages),
      params: inbound.params ?? {},
      tools: now.tools,
      signal,
    });
  }

  /** A throw becomes the `error` event. */
  private async *guarded(events: AsyncGenerator<TurnEvent>): AsyncGenerator<TurnEvent> {
    try {
      yield* events;
    } catch (err) {
      yield { type: 'error', error: err instanceof Error ? err : new Error(String(err)) };
    }
  }
}
