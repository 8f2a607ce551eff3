// The worker's chat completion answer as a Responses `response`, whole (translateCompletion) or as
// the Responses stream's events (ResponseStream), which is what stock clients read.
import { randomBytes } from 'node:crypto';
import type { Static } from 'typebox';
import type { ResponseObject } from './schemas.js';
import type { TranslatedRequest } from './translate-request.js';

export type ResponseView = Static<typeof ResponseObject>;

interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

function usageOf(u: ChatUsage | undefined): ResponseView['usage'] {
  if (!u) return null;
  const input = u.prompt_tokens ?? 0;
  const output = u.completion_tokens ?? 0;
  return { input_tokens: input, output_tokens: output, total_tokens: u.total_tokens ?? input + output };
}

function shell(t: TranslatedRequest, created: number): ResponseView {
  return {
    id: t.ids.responseId,
    object: 'response',
    created_at: created,
    status: 'in_progress',
    model: 'assistant-agent',
    output: [],
    previous_response_id: t.previousResponseId,
    instructions: t.instructions,
    store: t.store,
    error: null,
    incomplete_details: null,
    usage: null,
  };
}

const messageId = () => `msg_${randomBytes(20).toString('hex')}`;

function completed(t: TranslatedRequest, created: number, msgId: string, text: string, usage: ChatUsage | undefined) {
  return {
    ...shell(t, created),
    status: 'completed' as const,
    output: [
      {
        type: 'message' as const,
        id: msgId,
        role: 'assistant' as const,
        status: 'completed' as const,
        content: [{ type: 'output_text' as const, text, annotations: [] }],
      },
    ],
    usage: usageOf(usage),
  };
}

/**
 * A completed response that could not be stored, as the client is told it: `failed`, with the
 * answer it already has, because a `completed` one must be retrievable and continuable
 * (docs/decisions/0033-responses-stored-before-completed.md).
 */
export function notStored(r: ResponseView, requestId: string): ResponseView {
  return {
    ...r,
    status: 'failed',
    error: {
      code: 'server_error',
      message: `The answer could not be stored (request ${requestId}), so it cannot be retrieved or continued with previous_response_id; try again.`,
    },
  };
}

/** A buffered chat.completion as a completed response; undefined when it is not one (passed on as is). */
export function translateCompletion(t: TranslatedRequest, body: Buffer): ResponseView | undefined {
  let c: { created?: number; choices?: Array<{ message?: { content?: unknown } }>; usage?: ChatUsage };
  try {
    c = JSON.parse(body.toString());
  } catch {
    return undefined;
  }
  const content = c.choices?.[0]?.message?.content;
  if (typeof content !== 'string') return undefined;
  return completed(t, c.created ?? Math.floor(Date.now() / 1000), messageId(), content, c.usage);
}

/**
 * Reads the worker's chat.completion.chunk stream piece by piece and writes the Responses events.
 * The worker's `error` event passes through as it is (the OpenAI SDKs throw on it in either API);
 * its tool progress is left out, as stock Responses clients have no event for it.
 */
export class ResponseStream {
  private pending = '';
  private seq = 0;
  private text = '';
  private started = false;
  private finished = false;
  private usage: ChatUsage | undefined;
  /** The response as the last event tells it, once the worker's [DONE] came (see `end`). */
  private last: ResponseView | Promise<ResponseView> | undefined;
  private readonly created = Math.floor(Date.now() / 1000);
  private readonly msgId = messageId();

  constructor(
    private readonly t: TranslatedRequest,
    /**
     * Given the completed response once the worker's stream has ended well; answers what the last
     * event tells (the response, or its failed form), a promise while it is being stored.
     */
    private readonly settle: (r: ResponseView) => ResponseView | Promise<ResponseView>,
  ) {}

  /** The Responses events for a piece of the worker's stream (possibly none). */
  chunk(piece: Buffer): string {
    this.pending += piece.toString();
    let out = '';
    let end = this.pending.indexOf('\n\n');
    while (end !== -1) {
      out += this.event(this.pending.slice(0, end));
      this.pending = this.pending.slice(end + 2);
      end = this.pending.indexOf('\n\n');
    }
    return out;
  }

  private emit(type: string, data: object): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...data })}\n\n`;
  }

  private item(status: 'in_progress' | 'completed') {
    const content = status === 'completed' ? [{ type: 'output_text', text: this.text, annotations: [] }] : [];
    return { type: 'message', id: this.msgId, role: 'assistant', status, content };
  }

  private start(): string {
    this.started = true;
    const r = shell(this.t, this.created);
    const part = { type: 'output_text', text: '', annotations: [] };
    return (
      this.emit('response.created', { response: r }) +
      this.emit('response.in_progress', { response: r }) +
      this.emit('response.output_item.added', { output_index: 0, item: this.item('in_progress') }) +
      this.emit('response.content_part.added', { item_id: this.msgId, output_index: 0, content_index: 0, part })
    );
  }

  private finish(): string {
    this.finished = true;
    const at = { item_id: this.msgId, output_index: 0, content_index: 0 };
    // The store write starts here and runs while these events go out and the worker's stream
    // ends; response.completed waits for it in end(), so a client that has it can GET it.
    this.last = this.settle(completed(this.t, this.created, this.msgId, this.text, this.usage));
    return (
      this.emit('response.output_text.done', { ...at, text: this.text }) +
      this.emit('response.content_part.done', {
        ...at,
        part: { type: 'output_text', text: this.text, annotations: [] },
      }) +
      this.emit('response.output_item.done', { output_index: 0, item: this.item('completed') })
    );
  }

  /**
   * The last event, once the worker's stream has ended: response.completed, or response.failed
   * when the response could not be stored. A promise only while the store write is under way, so
   * only the stream's end waits; nothing when the worker never sent [DONE] (as before).
   */
  end(): string | Promise<string> {
    const last = this.last;
    if (last === undefined) return '';
    return last instanceof Promise ? last.then((r) => this.lastEvent(r)) : this.lastEvent(last);
  }

  private lastEvent(r: ResponseView): string {
    return this.emit(r.status === 'completed' ? 'response.completed' : 'response.failed', { response: r });
  }

  private event(block: string): string {
    let name = '';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) name = line.slice(6).trim();
      else if (line.startsWith('data:')) data += line.slice(5).trimStart();
    }
    // A keepalive comment stays one: it is what keeps idle proxies from closing a slow turn.
    if (!name && !data) return block.startsWith(':') ? `${block}\n\n` : '';
    if (name === 'error') return `${block}\n\n`;
    if (name || this.finished) return '';
    if (data === '[DONE]') return (this.started ? '' : this.start()) + this.finish();
    let chunk: { choices?: Array<{ delta?: { content?: unknown } }>; usage?: ChatUsage };
    try {
      chunk = JSON.parse(data);
    } catch {
      return '';
    }
    let out = this.started ? '' : this.start();
    if (chunk.usage) this.usage = chunk.usage;
    const delta = chunk.choices?.[0]?.delta?.content;
    if (typeof delta === 'string' && delta.length > 0) {
      this.text += delta;
      out += this.emit('response.output_text.delta', {
        item_id: this.msgId,
        output_index: 0,
        content_index: 0,
        delta,
      });
    }
    return out;
  }
}
