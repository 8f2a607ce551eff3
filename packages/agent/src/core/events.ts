// What a turn tells its channel while it runs: text as it arrives, a tool starting, the answer,
// or why there is none. Channels render these; they never see the model or the tools.

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type TurnEvent =
  | { type: 'delta'; content: string }
  | { type: 'tool'; tool: string; emoji: string; label: string }
  | { type: 'done'; content: string; finishReason: string; usage: Usage }
  /** The turn failed (a ProviderError, an AgentError, ...); nothing follows it. */
  | { type: 'error'; error: Error };

/** A message as the model sees it. */
export type ChatMessage =
  | { role: 'system' | 'user' | 'assistant'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };
