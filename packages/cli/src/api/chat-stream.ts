// Reads the chat event stream of the spec: default events carry chat.completion.chunk objects,
// `assistant.tool.progress` carries {tool, emoji, label}, `data: [DONE]` ends it; any other event
// name is opaque metadata and skipped, except `error` (the control plane's envelope when the worker
// broke off mid-stream). The parser copes with events split across packets and with
// multi-byte characters split across them (the decoder keeps partial sequences).
import { createParser } from 'eventsource-parser';
import { ApiError } from './errors.js';

export interface ToolProgress { tool: string; emoji: string; label: string }

export interface ChatStreamHandlers {
  onText(text: string): void;
  onToolProgress(progress: ToolProgress): void;
}

export async function readChatStream(body: AsyncIterable<Buffer | string>, handlers: ChatStreamHandlers): Promise<string> {
  let whole = '';
  let done = false;
  let failure: Error | undefined;
  const parser = createParser({
    onEvent(event) {
      if (done || failure) return;
      if (event.event === 'assistant.tool.progress') {
        const progress = parseJson(event.data) as Partial<ToolProgress> | undefined;
        if (progress && typeof progress.label === 'string') {
          handlers.onToolProgress({ tool: String(progress.tool ?? ''), emoji: String(progress.emoji ?? '🔧'), label: progress.label });
        }
        return;
      }
      if (event.event && event.event !== 'message' && event.event !== 'error') return;
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      const chunk = parseJson(event.data) as { choices?: { delta?: { content?: unknown } }[]; error?: { code?: unknown; message?: unknown } } | undefined;
      if (chunk?.error) {
        // An error after the stream began arrives as `event: error` carrying the error envelope.
        failure = new ApiError(502, String(chunk.error.code ?? 'BAD_GATEWAY'), String(chunk.error.message ?? 'the stream failed'));
        return;
      }
      const text = chunk?.choices?.[0]?.delta?.content;
      if (typeof text === 'string' && text) {
        whole += text;
        handlers.onText(text);
      }
    },
  });
  const decoder = new TextDecoder();
  for await (const piece of body) {
    parser.feed(typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true }));
    if (failure) throw failure;
  }
  parser.feed(decoder.decode());
  if (failure) throw failure;
  if (!done) throw new ApiError(502, 'BAD_GATEWAY', 'the answer stream ended before it was complete; try again');
  return whole;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
