// A loopback OpenAI-compatible chat completions server: the wire format of POST
// /v1/chat/completions (JSON and SSE, tool calls, usage, OpenAI error bodies), scripted by tests.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { close, createServer, listen, readJson, sendJson } from './http.js';

export interface ToolCallReply {
  name: string;
  arguments: Record<string, unknown>;
}

export type Reply =
  | { content: string; delayMs?: number; chunkDelayMs?: number; finishReason?: string }
  | { toolCalls: ToolCallReply[]; delayMs?: number }
  | { status: number; error: { message: string; type?: string; code?: string }; delayMs?: number }
  /** Sends headers and some content, then drops the connection. */
  | { breakAfter: string }
  /** Never answers (until the client gives up). */
  | { hang: true }
  /** Answers exactly this (a captive portal's HTML page, a redirect). */
  | { raw: { status: number; headers: Record<string, string>; body: string } }
  /** Streams these deltas as chunks, verbatim (malformed tool calls and the like). */
  | { deltas: object[] };

export interface RecordedRequest {
  headers: IncomingMessage['headers'];
  body: any;
  aborted: boolean;
  /** When the request arrived, and when its first content chunk was written (Date.now()). */
  at: number;
  firstContentAt?: number;
}

export class FakeModelProvider {
  readonly requests: RecordedRequest[] = [];
  /** Replies used in order; when empty, `fallback` answers. */
  readonly queue: Reply[] = [];
  apiKeys = new Set<string>(['sk-test-model-key-0123456789abcdef']);
  fallback: (body: any) => Reply = (body) => {
    const last = [...(body.messages ?? [])].reverse().find((m: any) => m.role === 'user');
    return { content: `You said: ${last?.content ?? ''}` };
  };
  /** Token counts every reply reports, shaped like OpenAI's/OpenRouter's `usage` object. */
  usage = { prompt_tokens: 11, completion_tokens: 7 };
  /** When set, `usage.cost` (USD) is reported too, as OpenRouter does. */
  reportCost: number | undefined;
  url = '';
  /** Requests being answered now, and the most there ever were at once. */
  inflight = 0;
  maxInflight = 0;
  private server = createServer((req, res) => void this.handle(req, res).catch(() => res.destroy()));
  private created = 1_700_000_000;

  async start(): Promise<this> {
    this.url = `${await listen(this.server)}/v1`;
    return this;
  }

  stop() {
    return close(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      return sendJson(res, 404, {
        error: { message: `Unknown request URL: ${req.method} ${req.url}`, type: 'invalid_request_error' },
      });
    }
    const body = await readJson(req);
    this.maxInflight = Math.max(this.maxInflight, ++this.inflight);
    res.on('close', () => this.inflight--);
    const record: RecordedRequest = { headers: req.headers, body, aborted: false, at: Date.now() };
    this.requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    const key = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!key || !this.apiKeys.has(key)) {
      return sendJson(res, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    }
    const reply = this.queue.shift() ?? this.fallback(body);
    if ('hang' in reply) return;
    if ('delayMs' in reply && reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if ('status' in reply) return sendJson(res, reply.status, { error: { type: 'api_error', ...reply.error } });
    if ('raw' in reply) {
      res.writeHead(reply.raw.status, reply.raw.headers);
      return res.end(reply.raw.body);
    }
    const id = `chatcmpl-${this.requests.length}`;
    const usage = {
      ...this.usage,
      total_tokens: this.usage.prompt_tokens + this.usage.completion_tokens,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
      ...(this.reportCost !== undefined ? { cost: this.reportCost } : {}),
    };
    if (!body.stream) {
      const message =
        'toolCalls' in reply
          ? {
              role: 'assistant',
              content: null,
              tool_calls: reply.toolCalls.map((t, i) => ({
                id: `call_${i}`,
                type: 'function',
                function: { name: t.name, arguments: JSON.stringify(t.arguments) },
              })),
            }
          : { role: 'assistant', content: 'content' in reply ? reply.content : '' };
      const finish = 'toolCalls' in reply ? 'tool_calls' : ('finishReason' in reply && reply.finishReason) || 'stop';
      return sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created: this.created,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: object, finish: string | null = null, extra: object = {}) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: this.created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
      );
    chunk({ role: 'assistant', content: '' });
    if ('breakAfter' in reply) {
      chunk({ content: reply.breakAfter });
      await new Promise((r) => setTimeout(r, 20));
      res.destroy();
      return;
    }
    if ('deltas' in reply) {
      for (const d of reply.deltas) chunk(d);
      chunk({}, 'tool_calls');
    } else if ('toolCalls' in reply) {
      reply.toolCalls.forEach((t, i) => {
        const args = JSON.stringify(t.arguments);
        // Arguments arrive in pieces, as real providers send them.
        chunk({
          tool_calls: [
            { index: i, id: `call_${i}`, type: 'function', function: { name: t.name, arguments: args.slice(0, 5) } },
          ],
        });
        chunk({ tool_calls: [{ index: i, function: { arguments: args.slice(5) } }] });
      });
      chunk({}, 'tool_calls');
    } else {
      const words = reply.content.match(/\S+\s*/g) ?? [''];
      for (const w of words) {
        if (res.destroyed) return;
        record.firstContentAt ??= Date.now();
        chunk({ content: w });
        if (reply.chunkDelayMs) await new Promise((r) => setTimeout(r, reply.chunkDelayMs));
      }
      chunk({}, reply.finishReason ?? 'stop');
    }
    if (body.stream_options?.include_usage)
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: this.created, model: body.model, choices: [], usage })}\n\n`,
      );
    res.end('data: [DONE]\n\n');
  }
}
