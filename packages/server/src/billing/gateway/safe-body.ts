// What a managed worker may ask of the router. Only parameters on this list pass: router-specific
// ones (`models`, `route`, `provider`, `plugins`, `transforms`, `usage`, ...) could reach models
// outside the catalog or change what a reply costs. The model is pinned to the deployment's,
// `n` to 1, the reply length clamped, and the stream asked to end with its usage.
import { checkImageUrl, IMAGES_MAX_PER_REQUEST } from '@berth/contracts';

export const MAX_COMPLETION_TOKENS = 4096;

const SAFE = new Set([
  'messages',
  'stream',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'seed',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'user',
  'logit_bias',
]);

export interface SafeBody {
  body: Record<string, unknown>;
  maxTokens: number;
  stream: boolean;
}

const positiveInt = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/**
 * Content parts a worker may send: text always; images only to a vision model and only as data URLs
 * of a real image within the cap (the agent fetches https images itself). A `file` or `input_audio`
 * part would be read and billed by the router outside what the catalog prices: refused.
 */
function checkParts(messages: unknown[], vision: boolean): string | undefined {
  let images = 0;
  for (const [i, m] of messages.entries()) {
    const content = (m as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const [j, p] of content.entries()) {
      const type = (p as { type?: unknown } | null)?.type;
      if (type === 'text') continue;
      if (type !== 'image_url')
        return `messages[${i}].content[${j}]: parts of type "${String(type).slice(0, 40)}" are not accepted.`;
      if (!vision) return `messages[${i}].content[${j}]: this deployment's model does not read images.`;
      const url = (p as { image_url?: { url?: unknown } }).image_url?.url;
      const checked = checkImageUrl(url);
      if (!checked.ok) return `messages[${i}].content[${j}]: ${checked.why}.`;
      if (checked.kind !== 'data') return `messages[${i}].content[${j}]: only data: image URLs pass the gateway.`;
      if (++images > IMAGES_MAX_PER_REQUEST) return `At most ${IMAGES_MAX_PER_REQUEST} images a request.`;
    }
  }
  return undefined;
}

export function safeBody(
  input: Record<string, unknown>,
  modelId: string,
  opts: { vision?: boolean } = {},
): SafeBody | { error: string } {
  if (!Array.isArray(input.messages) || input.messages.length === 0)
    return { error: '"messages" must be a non-empty array.' };
  const bad = checkParts(input.messages, opts.vision === true);
  if (bad) return { error: bad };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (SAFE.has(k)) out[k] = v;
  const asked = [positiveInt(input.max_tokens), positiveInt(input.max_completion_tokens)].filter(
    (v): v is number => v !== undefined,
  );
  const maxTokens = Math.min(MAX_COMPLETION_TOKENS, ...asked);
  delete out.max_completion_tokens;
  out.max_tokens = maxTokens;
  out.model = modelId;
  out.n = 1;
  const stream = input.stream === true;
  out.stream = stream;
  if (stream) out.stream_options = { include_usage: true };
  return { body: out, maxTokens, stream };
}
