// Reads the chat event stream of the spec with Berth's one SSE reader (@berth/contracts): default
// events carry chat.completion.chunk objects, `assistant.tool.progress` carries {tool, emoji,
// label}, `data: [DONE]` ends it; `event: error` is the control plane's envelope when the worker
// broke off mid-stream; any other event name is opaque metadata and skipped.
import { readSse } from '@berth/contracts';
import { ApiError } from './errors.js';

export interface ToolProgress {
  tool: string;
  emoji: string;
  label: string;
}

export interface ChatStreamHandlers {
  onText(text: string): void;
  onToolProgress(progress: ToolProgress): void;
}

interface Chunk {
  choices?: { delta?: { content?: unknown } }[];
  error?: { code?: unknown; message?: unknown };
}

export async function readChatStream(
  body: AsyncIterable<Uint8Array | string>,
  handlers: ChatStreamHandlers,
): Promise<string> {
  let whole = '';
  for await (const event of readSse(body)) {
    if (event.event === 'assistant.tool.progress') {
      const progress = parseJson(event.data) as Partial<ToolProgress> | undefined;
      if (progress && typeof progress.label === 'string') {
        handlers.onToolProgress({
          tool: String(progress.tool ?? ''),
          emoji: String(progress.emoji ?? '🔧'),
          label: progress.label,
        });
      }
      continue;
    }
    if (event.event && event.event !== 'message' && event.event !== 'error') continue;
    if (event.data === '[DONE]') return whole;
    const chunk = parseJson(event.data) as Chunk | undefined;
    if (chunk?.error) {
      throw new ApiError(
        502,
        String(chunk.error.code ?? 'BAD_GATEWAY'),
        String(chunk.error.message ?? 'the stream failed'),
      );
    }
    const text = chunk?.choices?.[0]?.delta?.content;
    if (typeof text === 'string' && text) {
      whole += text;
      handlers.onText(text);
    }
  }
  throw new ApiError(502, 'BAD_GATEWAY', 'the answer stream ended before it was complete; try again');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
