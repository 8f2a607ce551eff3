// The system messages every model call starts with: the assistant's persona. Memory (DESIGN §7.4)
// joins here as one more block.
import type { ChatMessage } from './events.js';

export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful assistant. Answer concisely. Use the tools when they help: current_datetime for dates and times, calculator for arithmetic, fetch_web_page to read a public web page.';

export interface PromptParts {
  /** The persona (settings.systemPrompt). */
  persona: string;
}

/** The persona first, then the caller's messages. */
export function withPersona(parts: PromptParts, messages: ChatMessage[]): ChatMessage[] {
  return [{ role: 'system', content: parts.persona }, ...messages];
}
