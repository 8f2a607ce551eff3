// What a streamed answer carries besides text chunks.
import type { ErrorCode } from '../errors/codes.js';

export interface ToolProgress {
  tool: string;
  emoji: string;
  label: string;
}

/**
 * The tool-progress event's data: `{tool, emoji, label}` AND a valid empty chat.completion.chunk.
 * Stock OpenAI and Vercel SDKs ignore event names and read every data line as a chunk; with the
 * chunk fields they see an empty delta, while clients that switch on the name get the progress.
 */
export function toolProgressEvent(
  chunk: { id: string; created: number; model: string },
  progress: ToolProgress,
): string {
  const data = {
    id: chunk.id,
    object: 'chat.completion.chunk',
    created: chunk.created,
    model: chunk.model,
    choices: [{ index: 0, delta: {}, finish_reason: null }],
    tool: progress.tool,
    emoji: progress.emoji,
    label: progress.label,
  };
  return `event: assistant.tool.progress\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A failure after the stream started, in the error envelope (the OpenAI SDKs throw on it). */
export function errorEvent(error: { code: ErrorCode; message: string }): string {
  return `event: error\ndata: ${JSON.stringify({ error })}\n\n`;
}
