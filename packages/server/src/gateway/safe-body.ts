// What a managed worker may ask of the router. Only parameters on this list pass: router-specific
// ones (`models`, `route`, `provider`, `plugins`, `transforms`, `usage`, ...) could reach models
// outside the catalog or change what a reply costs. The model is pinned to the deployment's,
// `n` to 1, the reply length clamped, and the stream asked to end with its usage.
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

export function safeBody(input: Record<string, unknown>, modelId: string): SafeBody | { error: string } {
  if (!Array.isArray(input.messages) || input.messages.length === 0)
    return { error: '"messages" must be a non-empty array.' };
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
