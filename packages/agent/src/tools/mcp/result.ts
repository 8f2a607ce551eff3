// An MCP tool result as the model reads it: its text (at most 100 KB), and its images only for a
// model that reads images (DESIGN §9.2). What the server sent is untrusted text: it goes to the
// model as a tool result, never into Berth's own instructions.
import { ToolFailure, type ToolOutput } from '../tool.js';

export const MCP_MAX_TEXT_BYTES = 100 * 1024;
const MAX_IMAGES = 4;
/** Base64 characters of one image (≈ 1.5 MB decoded). */
const MAX_IMAGE_CHARS = 2 * 1024 * 1024;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

type Content =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; text?: string; blob?: string; mimeType?: string } }
  | { type: 'resource_link'; uri: string; name: string }
  | { type: string; [k: string]: unknown };

export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}

/** Cuts `text` to at most `max` UTF-8 bytes, saying so. */
export function capText(text: string, max = MCP_MAX_TEXT_BYTES): string {
  if (Buffer.byteLength(text) <= max) return text;
  const note = `\n[truncated: the tool returned more than ${Math.round(max / 1024)} KB of text]`;
  let cut = Buffer.from(text)
    .subarray(0, max - Buffer.byteLength(note))
    .toString('utf8');
  // A multi-byte character cut in half decodes to U+FFFD: drop it.
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return cut + note;
}

export function toToolOutput(result: McpCallResult, vision: boolean): string | ToolOutput {
  const content = (Array.isArray(result.content) ? result.content : []) as Content[];
  const texts: string[] = [];
  const images: string[] = [];
  let skipped = 0;
  for (const c of content) {
    if (c.type === 'text' && typeof c.text === 'string') texts.push(c.text);
    else if (c.type === 'image' && typeof c.data === 'string' && typeof c.mimeType === 'string') {
      if (vision && IMAGE_TYPES.has(c.mimeType) && c.data.length <= MAX_IMAGE_CHARS && images.length < MAX_IMAGES)
        images.push(`data:${c.mimeType};base64,${c.data}`);
      else skipped++;
    } else if (c.type === 'resource' && typeof (c as { resource?: { text?: unknown } }).resource?.text === 'string')
      texts.push(String((c as { resource: { text: string } }).resource.text));
    else if (c.type === 'resource_link' && typeof c.uri === 'string') texts.push(`[resource: ${String(c.uri)}]`);
    else skipped++;
  }
  if (texts.length === 0 && result.structuredContent !== undefined)
    texts.push(JSON.stringify(result.structuredContent));
  if (skipped)
    texts.push(
      `[${skipped} part${skipped > 1 ? 's' : ''} of the result not shown${vision ? '' : ' (this model does not read images)'}]`,
    );
  const text = capText(texts.join('\n'));
  if (result.isError) throw new ToolFailure(text || 'The tool reported an error.');
  return images.length ? { text: text || '(images)', images } : text;
}
