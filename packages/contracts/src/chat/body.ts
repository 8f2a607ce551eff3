// The chat completions request as Berth accepts it, checked by the control plane before it
// forwards the bytes and by the agent before it answers, so both sides agree on what is valid.
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { checkImageUrl, IMAGES_MAX_PER_REQUEST } from './image.js';

/** The content part types the runtime understands; others are refused by name. */
export const SUPPORTED_PART_TYPES = ['text'] as const;
/** With a vision model (its catalog entry says "vision"), images too (DESIGN §7.3). */
export const VISION_PART_TYPES = ['text', 'image_url'] as const;

const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String() }, { additionalProperties: true });
const AnyPart = Type.Object({ type: Type.String() }, { additionalProperties: true });

export const ChatMessageSchema = Type.Object(
  {
    // `developer` is what newer OpenAI SDK types send for system instructions.
    role: Type.Union([
      Type.Literal('system'),
      Type.Literal('developer'),
      Type.Literal('user'),
      Type.Literal('assistant'),
    ]),
    // A string, or an array of parts as the OpenAI SDK types, Open WebUI and LibreChat send.
    content: Type.Union([Type.String(), Type.Array(AnyPart)], {
      description:
        'A string, or an array of parts. `text` parts always; `image_url` parts ({"type":"image_url","image_url":{"url"}}: a data:image/png|jpeg|gif|webp;base64 URL of at most 5 MB, or an https URL the assistant fetches from a public address) only when the deployment\'s model has the "vision" capability in the model catalog, else 400 INVALID_REQUEST naming why. Other part types (file, input_audio) are refused.',
    }),
  },
  { additionalProperties: true },
);

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

// Compiled once, on first use: this check runs on every chat request, on the control plane and on
// the agent, but a process that has not checked a body yet (an empty agent host) carries no code.
function onFirstUse<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}
const validator = onFirstUse(() => Compile(ChatCompletionBody));
const textPart = onFirstUse(() => Compile(TextPart));

/** A message after normalisation: string content, and one of the three roles the runtime keeps. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  /** The message's image URLs (data: or https:), only from a check made with `vision`. */
  images?: string[];
}

export interface ChatBodyOptions {
  /** The deployment's model reads images; without it an image part is refused, naming why. */
  vision?: boolean;
}

export interface ChatBody {
  model: 'assistant-agent';
  messages: ChatMessage[];
  stream?: boolean;
  [k: string]: unknown;
}

export type ChatBodyCheck = { ok: true; body: ChatBody } | { ok: false; message: string };

/** Deeper than this, a parameter is not a chat parameter but an attempt to exhaust a parser. */
export const MAX_BODY_DEPTH = 32;

/**
 * Whether an object or array sits `max` levels below the root (the root is level 0). Recursive: it
 * never goes deeper than `max` + 1 frames, and allocates no [value, depth] pair per node as a stack
 * of them did (half of this check's cost on a chat, docs/decisions/0027-scale.md, round 10).
 */
function depthExceeds(value: unknown, max: number, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= max) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  for (let i = 0; i < children.length; i++) if (depthExceeds(children[i], max, depth + 1)) return true;
  return false;
}

function normalise(messages: Array<{ role: string; content: unknown }>, opts: ChatBodyOptions): ChatMessage[] | string {
  const out: ChatMessage[] = [];
  let imageCount = 0;
  for (const [i, m] of messages.entries()) {
    let content: string;
    const images: string[] = [];
    if (typeof m.content === 'string') content = m.content;
    else {
      const parts = m.content as Array<{ type: string; text?: unknown; image_url?: { url?: unknown } }>;
      const texts: string[] = [];
      for (const [j, p] of parts.entries()) {
        if (p.type === 'image_url') {
          if (!opts.vision)
            return `messages[${i}] has an image_url part, but this assistant's model does not read images (its catalog entry has no "vision" capability); send text only, or deploy a model with vision.`;
          if (m.role !== 'user') return `messages[${i}] has an image_url part; only user messages may carry images.`;
          const checked = checkImageUrl(p.image_url?.url);
          if (!checked.ok) return `messages[${i}].content[${j}]: ${checked.why}.`;
          if (++imageCount > IMAGES_MAX_PER_REQUEST)
            return `A request may carry at most ${IMAGES_MAX_PER_REQUEST} images.`;
          images.push(p.image_url!.url as string);
          continue;
        }
        if (!textPart().Check(p)) {
          const type = String(p.type).slice(0, 40);
          const supported = opts.vision ? VISION_PART_TYPES : SUPPORTED_PART_TYPES;
          return `messages[${i}] has a content part of type "${type}"; supported part types: ${supported.join(', ')} (or send content as a string).`;
        }
        texts.push(p.text);
      }
      content = texts.join('\n');
    }
    const role = m.role === 'developer' ? 'system' : (m.role as ChatMessage['role']);
    out.push(images.length ? { role, content, images } : { role, content });
  }
  return out;
}

/** Accepts the raw bytes or an already parsed value; returns the body with messages normalised. */
export function checkChatBody(input: Buffer | string | unknown, opts: ChatBodyOptions = {}): ChatBodyCheck {
  let body: unknown = input;
  const empty =
    input === undefined ||
    input === null ||
    ((typeof input === 'string' || Buffer.isBuffer(input)) && input.length === 0);
  if (empty) return { ok: false, message: 'The request body is empty; send a chat completion request as JSON.' };
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    try {
      body = JSON.parse(input.toString());
    } catch {
      return { ok: false, message: 'The request body is not valid JSON.' };
    }
  }
  if (depthExceeds(body, MAX_BODY_DEPTH)) {
    return {
      ok: false,
      message: `The request body nests deeper than ${MAX_BODY_DEPTH} levels; chat parameters never do.`,
    };
  }
  if (!validator().Check(body)) {
    const first = [...validator().Errors(body)].slice(0, 5);
    const model = (body as { model?: unknown } | null)?.model;
    const hint =
      typeof model === 'string' && model !== 'assistant-agent'
        ? ` Use "model": "assistant-agent" (got "${model.slice(0, 64)}").`
        : '';
    return {
      ok: false,
      message: `Invalid chat completion request: ${first.map((e) => `${e.instancePath || 'body'} ${e.message}`).join('; ')}.${hint}`,
    };
  }
  const parsed = body as ChatBody & { messages: Array<{ role: string; content: unknown }> };
  const messages = normalise(parsed.messages, opts);
  if (typeof messages === 'string') return { ok: false, message: messages };
  return { ok: true, body: { ...parsed, messages } };
}

export const SESSION_ID_MAX = 256;

/** Returns the session id, undefined when absent, or a reason it is refused. */
export function checkSessionId(
  raw: string | string[] | undefined,
): { ok: true; id: string | undefined } | { ok: false; message: string } {
  if (raw === undefined) return { ok: true, id: undefined };
  const id = Array.isArray(raw) ? raw[0]! : raw;
  if (id.length === 0 || id.length > SESSION_ID_MAX)
    return { ok: false, message: `X-Assistant-Session-Id must be 1-${SESSION_ID_MAX} characters.` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\x00-\x1f\x7f]/.test(id))
    return { ok: false, message: 'X-Assistant-Session-Id must not contain control characters.' };
  return { ok: true, id };
}
