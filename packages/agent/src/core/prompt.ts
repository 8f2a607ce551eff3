// The system messages every model call starts with: the assistant's persona. Memory (DESIGN §7.4)
// joins here as one more block.
import type { ChatMessage } from './events.js';
import { summaryMessage } from './summary.js';
import type { InboundMessage } from './inbound.js';

export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful assistant. Answer concisely. Use the tools when they help: current_datetime for dates and times, calculator for arithmetic, fetch_web_page to read a public web page.';

export interface PromptParts {
  /** The persona (settings.systemPrompt). */
  persona: string;
  /** The end user's memory block (storage/memory.ts), at most 2,000 characters. */
  memory?: string;
  /** The running summary of the session's older turns (core/summary.ts). */
  summary?: string;
  /**
   * The user's local date and time (core/clock.ts), just before the newest user message: it changes
   * every minute, and everything before it (persona, memory, history) stays a prefix a provider's
   * prompt cache can reuse.
   */
  clock?: string;
}

/** The persona first, then the user's memory, then the summary, then the caller's messages (the clock before the newest user message). */
export function withPersona(parts: PromptParts, messages: ChatMessage[]): ChatMessage[] {
  const head: ChatMessage[] = [
    { role: 'system', content: parts.persona },
    ...(parts.memory ? [{ role: 'system' as const, content: parts.memory }] : []),
    ...(parts.summary ? [summaryMessage(parts.summary)] : []),
  ];
  if (!parts.clock) return [...head, ...messages];
  const clock: ChatMessage = { role: 'system', content: parts.clock };
  const last = messages.findLastIndex((m) => m.role === 'user');
  return last < 0
    ? [...head, ...messages, clock]
    : [...head, ...messages.slice(0, last), clock, ...messages.slice(last)];
}

/**
 * The user's turn as the model (and the stored history) sees it. In groups several people speak
 * in one conversation, so each turn carries its sender's first name.
 */
export function userTurn(inbound: InboundMessage): string {
  const name = inbound.chat.type === 'group' ? inbound.sender?.firstName?.replace(/[\r\n:]+/g, ' ').trim() : undefined;
  return name ? `${name}: ${inbound.text}` : inbound.text;
}
