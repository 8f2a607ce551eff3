// One assistant's conversations, channel-agnostic: respond() runs a turn for an inbound message
// and yields its events as they come. With a session it serialises the session's turns, loads its
// history and stores the new user/assistant pair once the turn completes.
import type { ModelProvider } from '../model/provider.js';
import type { SessionStore } from '../storage/sessions.js';
import type { AnyTool, Tool } from '../tools/tool.js';
import { AgentError } from '../errors.js';
import type { ChatMessage, TurnEvent } from './events.js';
import type { InboundMessage } from './inbound.js';
import { KeyedLock } from './keyed-lock.js';
import { userTurn, withPersona } from './prompt.js';
import { runTurn } from './turn.js';
import { clockBlock } from './clock.js';
import type { UserPrefsRepo } from '../storage/user-prefs.js';
import { foldIfNeeded } from './summary.js';
import type { MemoryRepo } from '../storage/memory.js';
import { endUserOf, type EndUser } from '../tools/end-user.js';
import type { Logger } from 'pino';

/** A message with images becomes text and image_url parts; one without stays a string. */
function withImages(m: { role: 'system' | 'user' | 'assistant'; content: string; images?: string[] }): ChatMessage {
  if (!m.images?.length || m.role !== 'user') return { role: m.role, content: m.content };
  return {
    role: 'user',
    content: [
      ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
      ...m.images.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
    ],
  };
}

export interface ConversationDeps {
  /** The assistant's name: its key in the store. */
  name: string;
  provider: ModelProvider;
  modelId: string;
  store: Pick<
    SessionStore,
    'load' | 'append' | 'admitSession' | 'limits' | 'summary' | 'fold' | 'loadWithSeq' | 'trimTo'
  >;
  /**
   * Read at every turn, so new settings apply to the next model call; with `preview` (a turn's
   * unsaved settings) they come from that document instead.
   */
  current(preview?: InboundMessage['settings']): {
    persona: string;
    tools: Tool[];
    historyChars: number;
    memory: boolean;
    /** The owner's default time zone for end users (settings.timezone). */
    timezone?: string | null;
    /** The owner's MCP tools (DESIGN §9.2): offered after the built-ins, never in their place. */
    mcp?: AnyTool[];
  };
  /** Per end user (DESIGN §7.4): the memory block and the tools bound to that user. */
  perUser?: {
    memory: Pick<MemoryRepo, 'block'>;
    /** The user's own time zone (storage/user-prefs.ts). */
    prefs?: Pick<UserPrefsRepo, 'timezone'>;
    tools(who: EndUser, inbound: InboundMessage): Tool[];
  };
  log?: Pick<Logger, 'warn'>;
  /** The clock of the model call's "now" block (tests hold it). */
  now?: () => Date;
}

/** How long a session's fold (one summary call) may take; its next turn waits for it. */
const FOLD_DEADLINE_MS = 120_000;

export class Conversation {
  private readonly locks = new KeyedLock();

  constructor(private readonly d: ConversationDeps) {}

  private now(): Date {
    return this.d.now?.() ?? new Date();
  }

  /**
   * Runs one turn. A failure is the last event (`error`), never a throw; an abort by `signal`
   * ends the events early.
   */
  async *respond(inbound: InboundMessage, signal: AbortSignal): AsyncGenerator<TurnEvent> {
    if (!inbound.session) {
      const messages = inbound.transcript?.map(withImages) ?? [
        ...(inbound.system ?? []).map((content) => ({ role: 'system' as const, content })),
        withImages({ role: 'user', content: userTurn(inbound), images: inbound.images }),
      ];
      yield* this.guarded(this.run(messages, inbound, signal));
      return;
    }
    const session = inbound.session;
    const events: TurnEvent[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    const answered = () => {
      finished = true;
      wake?.();
    };
    const who = endUserOf(this.d.name, inbound);
    // The lock serialises turns of one session; events are handed out as they come. Once the
    // answer is stored the caller is released, and the session's fold (rolling summary) runs
    // still inside the lock: the next turn of this session waits for it, no answer does.
    const work = this.locks
      .run(session, async () => {
        // In a group the sender's first name leads the turn, for the model and in history alike.
        const said = userTurn(inbound);
        const turnMessage = withImages({ role: 'user', content: said, images: inbound.images });
        const summary = this.d.store.summary(this.d.name, session);
        // History keeps words, never image bytes or a document's text (DESIGN §7.3).
        const storedText = inbound.stored ?? (inbound.images?.length ? `[photo] ${said}`.trimEnd() : said);
        const history = this.d.store.load(this.d.name, session);
        const system = (inbound.system ?? []).map((content) => ({ role: 'system' as const, content }));
        let stored = false;
        const turn = this.run([...system, ...history, turnMessage], inbound, signal, summary);
        for await (const ev of this.guarded(turn)) {
          events.push(ev);
          wake?.();
          if (ev.type === 'done') {
            this.d.store.append(
              this.d.name,
              session,
              [
                { role: 'user', content: storedText },
                { role: 'assistant', content: ev.content },
              ],
              // Turns beyond historyChars are folded into the summary below, not dropped here.
              Number.POSITIVE_INFINITY,
              who?.user,
            );
            stored = true;
          }
        }
        answered();
        if (stored) await this.fold(session);
      })
      .catch((err: unknown) => {
        if (!finished) events.push({ type: 'error', error: err instanceof Error ? err : new Error(String(err)) });
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
    void work;
    while (events.length) yield events.shift()!;
  }

  /** Folds turns beyond historyChars into the running summary; a failed fold trims as before. */
  private async fold(session: string): Promise<void> {
    const budget = this.d.current().historyChars;
    try {
      await foldIfNeeded({
        store: this.d.store,
        provider: this.d.provider,
        modelId: this.d.modelId,
        agent: this.d.name,
        session,
        budgetChars: budget,
        signal: AbortSignal.timeout(FOLD_DEADLINE_MS),
      });
    } catch (err) {
      this.d.log?.warn({ agent: this.d.name, err: (err as Error).message }, 'summary failed; oldest turns dropped');
      this.d.store.trimTo(this.d.name, session, budget);
    }
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

  private run(messages: ChatMessage[], inbound: InboundMessage, signal: AbortSignal, summary?: string) {
    const now = this.d.current(inbound.settings);
    const who = endUserOf(this.d.name, inbound);
    const per = who && this.d.perUser;
    const memory = per && now.memory ? per.memory.block(this.d.name, who.user) : undefined;
    const own = per && per.prefs?.timezone(this.d.name, who.user);
    const clock = own
      ? clockBlock(this.now(), own, 'user')
      : now.timezone
        ? clockBlock(this.now(), now.timezone, 'owner')
        : clockBlock(this.now(), undefined, 'none', Boolean(per?.prefs));
    return runTurn({
      provider: this.d.provider,
      modelId: this.d.modelId,
      messages: withPersona({ persona: now.persona, memory, summary, clock }, messages),
      // OpenAI's `user`: the model gateway meters each call per end user for the owner (DESIGN §9.3).
      params: who ? { ...inbound.params, user: who.user } : (inbound.params ?? {}),
      tools: firstOfEachName([...now.tools, ...(per ? per.tools(who, inbound) : []), ...(now.mcp ?? [])]),
      signal,
      // Shared pools (the HTML converter) queue work per assistant, so one cannot starve another.
      tenant: this.d.name,
      // A scheduled task's answer is sent as text only (DESIGN §9.5): no picture or file is made for it.
      attachments: inbound.scheduled !== true,
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

/** One tool per name, the first kept: a later tool (an owner's) never takes a built-in's name. */
function firstOfEachName(tools: AnyTool[]): AnyTool[] {
  const seen = new Set<string>();
  return tools.filter((t) => !seen.has(t.name) && seen.add(t.name));
}
