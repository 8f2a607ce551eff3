// Reads a streamed chat answer as typed events: text deltas, tool progress (`assistant.tool.progress`,
// shown while a tool runs), the final usage, and an error event (the envelope, after the stream began).
// Any other event name is opaque metadata and skipped (the spec's "Streaming events"), as is data
// that is not JSON. The reader alone (no Node-only writer), so the browser bundle stays clean.
import { readSse } from '@berth/contracts/sse/read';
import { BerthApiError } from './errors.js';

export type ChatStreamEvent =
  | { type: 'delta'; text: string }
  | { type: 'progress'; tool: string; emoji: string; label: string }
  | { type: 'usage'; promptTokens: number; completionTokens: number; totalTokens: number }
  | { type: 'error'; error: BerthApiError }
  | { type: 'done' };

interface Chunk {
  choices?: { delta?: { content?: string | null } }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

const KNOWN_EVENTS = new Set(['message', 'error', 'assistant.tool.progress']);

function parseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

function toEvents(name: string | undefined, data: string): ChatStreamEvent[] {
  if (name !== undefined && !KNOWN_EVENTS.has(name)) return [];
  if (data === '[DONE]') return [{ type: 'done' }];
  const parsed = parseJson(data) as
    | (Chunk & { tool?: string; emoji?: string; label?: string; error?: { code: never; message: string } })
    | undefined;
  if (typeof parsed !== 'object' || parsed === null) return [];
  if (name === 'assistant.tool.progress') {
    return [{ type: 'progress', tool: parsed.tool ?? '', emoji: parsed.emoji ?? '', label: parsed.label ?? '' }];
  }
  // The envelope is an error whichever event carries it (OpenAI's own streams send it unnamed).
  if (parsed.error) {
    return [{ type: 'error', error: new BerthApiError(200, parsed.error.code, parsed.error.message) }];
  }
  const out: ChatStreamEvent[] = [];
  const text = parsed.choices?.[0]?.delta?.content;
  if (text) out.push({ type: 'delta', text });
  if (parsed.usage) {
    const u = parsed.usage;
    out.push({
      type: 'usage',
      promptTokens: u.prompt_tokens,
      completionTokens: u.completion_tokens,
      totalTokens: u.total_tokens,
    });
  }
  return out;
}

/** The events of an SSE body, in order, as they arrive (framed and decoded by Berth's one SSE reader). */
export async function* readChatStream(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatStreamEvent> {
  for await (const e of readSse(chunksOf(body))) yield* toEvents(e.event, e.data);
}

/** A web ReadableStream as an async iterable (browsers do not all iterate streams natively yet). */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
