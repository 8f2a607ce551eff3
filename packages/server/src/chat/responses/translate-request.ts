// A Responses request as the chat completion request the worker already understands: the chat
// use case (complete-chat.ts) then checks, limits and meters it as any chat, so nothing here
// repeats those checks. Runs after the deployment is known to be ready (as chat's body check does).
import { Compile } from 'typebox/compile';
import { AppError } from '../../platform/errors/app-error.js';
import { STORED_RESPONSES_KEPT } from '../../platform/store/limits.js';
import { newSessionTurn, nextTurn, type ResponseIds, sessionOfResponse, statelessTurn } from './ids.js';
import { ResponseCreateBody } from './schemas.js';

const validator = Compile(ResponseCreateBody);

/**
 * The fields this translation turns into messages and max_tokens. Every other key passes through as
 * on chat completions; Responses-only ones with no chat parameter (`text`, `reasoning`, `include`,
 * …) stop at the model gateway's allow-list (billing/gateway/safe-body.ts), as a chat's unknown keys do.
 */
const TRANSLATED = new Set(['input', 'instructions', 'previous_response_id', 'store', 'max_output_tokens']);

export interface TranslatedRequest {
  /** The chat completion body sent to the worker. */
  chat: Buffer;
  ids: ResponseIds;
  stream: boolean;
  store: boolean;
  instructions: string | null;
  previousResponseId: string | null;
}

type Part = { type: string; text?: unknown; image_url?: unknown };
type Item = { role: string; content: string | Part[] };

function invalid(message: string): AppError {
  return new AppError('INVALID_REQUEST', message);
}

function chatContent(item: Item, i: number): string | object[] {
  if (typeof item.content === 'string') return item.content;
  return item.content.map((p, j) => {
    // output_text: an assistant item of history a client replays (the Vercel AI SDK does).
    if ((p.type === 'input_text' || p.type === 'output_text') && typeof p.text === 'string')
      return { type: 'text', text: p.text };
    // The image checks (vision, size, count) are chat's, on the translated part.
    if (p.type === 'input_image' && typeof p.image_url === 'string')
      return { type: 'image_url', image_url: { url: p.image_url } };
    throw invalid(
      `input[${i}].content[${j}] has a part of type "${String(p.type).slice(0, 40)}"; supported: input_text, output_text, input_image (with image_url), or content as a string.`,
    );
  });
}

function parse(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) throw invalid('The request body is empty; send a Responses request as JSON.');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString());
  } catch {
    throw invalid('The request body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('The request body must be a JSON object (a Responses request).');
  return body as Record<string, unknown>;
}

/** Whether this assistant stored a response with this id (the store, by deployment and id). */
export type IsStored = (responseId: string) => Promise<boolean>;

/** Which ids the turn gets, and so whether the worker keeps its conversation. */
async function idsOf(body: Record<string, unknown>, items: Item[], isStored: IsStored): Promise<ResponseIds> {
  const previous = body.previous_response_id as string | undefined;
  if (previous !== undefined) {
    const named = sessionOfResponse(previous);
    if (named === undefined)
      throw invalid(`previous_response_id "${previous.slice(0, 80)}" is not a response id of this assistant.`);
    // The id carries its session, so without this a stranger's id would continue (and read) the
    // stranger's conversation: only a response this assistant stored may be continued.
    if (!(await isStored(previous)))
      throw invalid(
        `Previous response with id "${previous}" not found: it was not stored (store: false), is another assistant's, or is older than the newest ${STORED_RESPONSES_KEPT} this assistant keeps. Send the whole conversation as input instead.`,
      );
    if (named === 'stateless')
      throw invalid(
        `previous_response_id "${previous}" was answered without a kept conversation (store: false, or an input of several messages); send the whole conversation as input instead.`,
      );
    return nextTurn(named.key);
  }
  // A session keeps only the newest user turn of each request (the worker holds the rest), so a
  // request that brings its own history (several messages) is answered statelessly, as sent.
  const turns = items.filter((m) => m.role !== 'system' && m.role !== 'developer');
  const single = turns.length === 1 && turns[0]!.role === 'user';
  return body.store !== false && single ? newSessionTurn() : statelessTurn();
}

/**
 * What Berth cannot do is refused before anything runs, in the envelope: an item that is not a
 * message (function_call_output, item_reference, reasoning, …) has nothing to become on chat, and
 * the assistant runs its own tools, not the client's (a function tool would never be called back;
 * a hosted one like web_search_preview would silently not run).
 */
function refuseUnsupported(body: Record<string, unknown>): void {
  if (Array.isArray(body.input))
    for (const [i, item] of body.input.entries()) {
      const type = (item as { type?: unknown } | null)?.type;
      if (type !== undefined && type !== 'message')
        throw invalid(
          `input[${i}] is an item of type "${String(type).slice(0, 40)}"; only message items (role and content) are supported.`,
        );
    }
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    const types = [...new Set(body.tools.map((t) => String((t as { type?: unknown } | null)?.type).slice(0, 40)))];
    throw invalid(
      `tools of type ${types.map((t) => `"${t}"`).join(', ')} are not supported: this assistant runs its own tools (its settings), not the client's. Send no tools.`,
    );
  }
}

export async function translateRequest(raw: Buffer, isStored: IsStored): Promise<TranslatedRequest> {
  const body = parse(raw);
  refuseUnsupported(body);
  if (!validator.Check(body)) {
    const first = [...validator.Errors(body)].slice(0, 3);
    throw invalid(
      `Invalid Responses request: ${first.map((e) => `${e.instancePath || 'body'} ${e.message}`).join('; ')}.`,
    );
  }
  const items: Item[] =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input as Item[]);
  const ids = await idsOf(body, items, isStored);
  const messages: Array<{ role: string; content: string | object[] }> = [];
  if (typeof body.instructions === 'string') messages.push({ role: 'system', content: body.instructions });
  for (const [i, item] of items.entries()) messages.push({ role: item.role, content: chatContent(item, i) });
  if (ids.session && !items.some((m) => m.role === 'user'))
    throw invalid('With previous_response_id, send the new user turn in input.');

  const chat: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!TRANSLATED.has(k)) chat[k] = v;
  chat.messages = messages;
  if (typeof body.max_output_tokens === 'number') chat.max_tokens = body.max_output_tokens;
  return {
    chat: Buffer.from(JSON.stringify(chat)),
    ids,
    stream: body.stream === true,
    store: body.store !== false,
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    previousResponseId: typeof body.previous_response_id === 'string' ? body.previous_response_id : null,
  };
}
