// One agent as the chat API needs it (runtime/assistant.ts implements it): the channel never
// imports the runtime (dependency rule, docs/architecture.md).
import type { Responder } from '../channel.js';

export interface ChatAgent {
  config: { gatewayToken: string; model: { provider: string }; allowPrivateFetch?: boolean };
  health(): { ready: boolean; status: string; reason: string | null };
  conversation: Responder;
  /** Whether the model reads images (image_url parts are refused otherwise). */
  readonly vision: boolean;
  /** An API session's stored messages, and forgetting them (the playground's transcript). */
  transcript(sessionId: string): Array<{ role: string; content: string }>;
  forgetSession(sessionId: string): boolean;
}
