// Rolling summary (DESIGN §7.4): when a session's history passes its budget, the oldest turns are
// folded into a running summary by the assistant's own model (one more metered call through the
// same provider) instead of being dropped. The summary rides along as a system message.
import type { ModelProvider } from '../model/provider.js';
import type { SessionStore, StoredMessage } from '../storage/sessions.js';

export const SUMMARY_MAX_TOKENS = 600;
const INSTRUCTION =
  'Summarise the conversation below for your own later reference: facts about the user, decisions, open questions and anything promised. Keep names, numbers and dates. At most 250 words, no preamble.';

export const summaryMessage = (summary: string) => ({
  role: 'system' as const,
  content: `Summary of the earlier part of this conversation:\n${summary}`,
});

/** Which oldest messages to fold so the rest fits in `keepChars`; the newest two always stay. */
export function foldPoint(history: Array<StoredMessage & { seq: number }>, keepChars: number): number | undefined {
  let kept = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    kept += history[i]!.content.length;
    if (kept > keepChars && i < history.length - 2) return history[i]!.seq;
  }
  return undefined;
}

async function complete(provider: ModelProvider, modelId: string, messages: unknown[], signal: AbortSignal) {
  let text = '';
  for await (const chunk of provider.stream({ model: modelId, messages, max_tokens: SUMMARY_MAX_TOKENS }, signal))
    if (chunk.content) text += chunk.content;
  return text.trim();
}

/**
 * Folds the session when its history exceeds `budgetChars`, keeping about half of the budget
 * verbatim so a fold happens every few turns, not every turn. Returns the summary to use (old or new).
 */
export async function foldIfNeeded(o: {
  store: Pick<SessionStore, 'summary' | 'loadWithSeq' | 'fold'>;
  provider: ModelProvider;
  modelId: string;
  agent: string;
  session: string;
  budgetChars: number;
  signal: AbortSignal;
}): Promise<string | undefined> {
  const previous = o.store.summary(o.agent, o.session);
  const history = o.store.loadWithSeq(o.agent, o.session);
  const total = history.reduce((n, m) => n + m.content.length, 0);
  if (total <= o.budgetChars) return previous;
  const through = foldPoint(history, Math.floor(o.budgetChars / 2));
  if (through === undefined) return previous;
  const folded = history.filter((m) => m.seq <= through);
  const transcript = folded.map((m) => `${m.role}: ${m.content}`).join('\n\n');
  const summary = await complete(
    o.provider,
    o.modelId,
    [
      { role: 'system', content: INSTRUCTION },
      { role: 'user', content: previous ? `Earlier summary:\n${previous}\n\nThen:\n${transcript}` : transcript },
    ],
    o.signal,
  );
  if (!summary) return previous;
  o.store.fold(o.agent, o.session, through, summary);
  return summary;
}
