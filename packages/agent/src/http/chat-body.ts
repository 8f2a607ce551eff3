// The chat completions request as Berth accepts it. The control plane checks bodies with the
// same code before forwarding them, so both sides agree on what is valid.
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';

export const ChatMessageSchema = Type.Object({
  role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
  content: Type.String(),
});

/** Other OpenAI-compatible parameters pass through to the provider, so extra keys are allowed. */
export const ChatCompletionBody = Type.Object(
  {
    model: Type.Literal('assistant-agent'),
    messages: Type.Array(ChatMessageSchema, { minItems: 1 }),
    stream: Type.Optional(Type.Boolean({ default: false })),
    max_tokens: Type.Optional(Type.Number()),
    temperature: Type.Optional(Type.Number()),
  },
  { additionalProperties: true },
);

// Compiled once: this check runs on every chat request, on the control plane and on the agent.
const validator = Compile(ChatCompletionBody);

export interface ChatBody {
  model: 'assistant-agent';
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  stream?: boolean;
  [k: string]: unknown;
}

export type ChatBodyCheck = { ok: true; body: ChatBody } | { ok: false; message: string };

/** Accepts the raw bytes or an already parsed value. */
export function checkChatBody(input: Buffer | string | unknown): ChatBodyCheck {
  let body: unknown = input;
  if (input === undefined || input === null || (typeof input === 'string' || Buffer.isBuffer(input)) && input.length === 0) {
    return { ok: false, message: 'The request body is empty; send a chat completion request as JSON.' };
  }
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    try { body = JSON.parse(input.toString()); } catch { return { ok: false, message: 'The request body is not valid JSON.' }; }
  }
  if (!validator.Check(body)) {
    const first = [...validator.Errors(body)].slice(0, 5);
    const model = (body as { model?: unknown } | null)?.model;
    const hint = typeof model === 'string' && model !== 'assistant-agent' ? ` Use "model": "assistant-agent" (got "${model.slice(0, 64)}").` : '';
    return { ok: false, message: `Invalid chat completion request: ${first.map((e) => `${e.instancePath || 'body'} ${e.message}`).join('; ')}.${hint}` };
  }
  return { ok: true, body: body as ChatBody };
}

export const SESSION_ID_MAX = 256;

/** Returns the session id, undefined when absent, or a reason it is refused. */
export function checkSessionId(raw: string | string[] | undefined): { ok: true; id: string | undefined } | { ok: false; message: string } {
  if (raw === undefined) return { ok: true, id: undefined };
  const id = Array.isArray(raw) ? raw[0]! : raw;
  if (id.length === 0 || id.length > SESSION_ID_MAX) return { ok: false, message: `X-Assistant-Session-Id must be 1-${SESSION_ID_MAX} characters.` };
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(id)) return { ok: false, message: 'X-Assistant-Session-Id must not contain control characters.' };
  return { ok: true, id };
}
