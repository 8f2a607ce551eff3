// What a turn tells its channel while it runs: text as it arrives, a tool starting, the answer,
// or why there is none. Channels render these; they never see the model or the tools.
import { ProviderError, type ProviderErrorKind } from '../model/provider.js';
import type { OutFile } from '../tools/tool.js';

export type { OutFile };

export type { ProviderErrorKind };

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type TurnEvent =
  | { type: 'delta'; content: string }
  | { type: 'tool'; tool: string; emoji: string; label: string }
  | { type: 'done'; content: string; finishReason: string; usage: Usage; files?: OutFile[] }
  /** The turn failed (a ProviderError, an AgentError, ...); nothing follows it. */
  | { type: 'error'; error: Error };

/** What a vision model is sent beside the words: images only ever as data URLs (DESIGN §7.3). */
export type UserPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** A message as the model sees it. */
export type ChatMessage =
  | { role: 'system' | 'user' | 'assistant'; content: string }
  | { role: 'user'; content: UserPart[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/**
 * Why the model provider failed a turn ('credits', 'rate_limit', ...), or undefined when the
 * failure was not the provider's: channels choose their words from it without importing model/.
 */
export function providerFailure(error: unknown): ProviderErrorKind | undefined {
  return error instanceof ProviderError ? error.kind : undefined;
}

/** What the provider's 429 said about when to retry (its Retry-After and x-ratelimit-* headers). */
export function providerRetryHeaders(error: unknown): Record<string, string> | undefined {
  return error instanceof ProviderError ? error.retryHeaders : undefined;
}

/** When spent credits renew, as the gateway said (the chat API's 429 carries it: decision 0029). */
export function providerRenewal(error: unknown): { renewsAt?: string; retryAfter?: string } | undefined {
  return error instanceof ProviderError ? error.renewal : undefined;
}
