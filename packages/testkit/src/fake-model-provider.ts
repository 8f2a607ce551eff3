// A loopback OpenAI-compatible chat completions server: the wire format of POST
// /v1/chat/completions (JSON and SSE, tool calls, usage, OpenAI error bodies), scripted by tests.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { close, createServer, listen, readBody, readForm, readJson, sendJson } from './http.js';
import { makeOggOpus, makePng } from './media-files.js';

export interface ToolCallReply {
  name: string;
  arguments: Record<string, unknown>;
}

export type Reply =
  | {
      content: string;
      delayMs?: number;
      chunkDelayMs?: number;
      finishReason?: string;
      /** Answered only once this settles: a turn a test holds open for as long as it needs. */
      until?: Promise<unknown>;
    }
  | { toolCalls: ToolCallReply[]; delayMs?: number }
  | {
      status: number;
      error: { message: string; type?: string; code?: string };
      delayMs?: number;
      /** Sent with the error (a 429's retry-after, x-ratelimit-remaining-requests, ...). */
      headers?: Record<string, string>;
    }
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

/** One POST /audio/transcriptions as the provider received it (multipart/form-data). */
export interface RecordedTranscription {
  headers: IncomingMessage['headers'];
  model: string | null;
  responseFormat: string | null;
  fileName: string | null;
  fileType: string | null;
  bytes: Buffer;
}

/** One POST /audio/speech or /images/generations as the provider received it (JSON). */
export interface RecordedMediaRequest {
  headers: IncomingMessage['headers'];
  body: any;
}

/**
 * What the next speech or image call gets instead of its bytes: an OpenAI error answer, or a 200
 * with bytes that are not what was asked for (a provider answering MP3, HTML or an empty list).
 */
export type MediaFailure =
  | { status: number; error: { message: string; type?: string; code?: string | null } }
  | { ok: { type: string; body: string } };

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .filter((p) => p?.type === 'text')
          .map((p) => p.text)
          .join('\n')
      : '';

export class FakeModelProvider {
  readonly requests: RecordedRequest[] = [];
  readonly transcriptions: RecordedTranscription[] = [];
  readonly speeches: RecordedMediaRequest[] = [];
  readonly imageRequests: RecordedMediaRequest[] = [];
  /** Failures the next speech or image calls answer with, in order (OpenAI's error shape). */
  readonly mediaFailures: MediaFailure[] = [];
  /** Seconds of (silent) OGG/Opus each speech call answers: about 15 characters a second. */
  speechSeconds: (input: string) => number = (input) => Math.max(1, Math.ceil(input.length / 15));
  /** The transcript each audio file gets; by default a sentence naming its size. */
  transcribe: (bytes: Buffer) => string = (b) => `transcript of ${b.length} bytes`;
  /** What `verbose_json` answers report as the audio's length, in seconds. */
  audioSeconds = 1;
  /** Replies used in order; when empty, `fallback` answers. */
  readonly queue: Reply[] = [];
  apiKeys = new Set<string>(['sk-test-model-key-0123456789abcdef']);
  fallback: (body: any) => Reply = (body) => {
    const last = [...(body.messages ?? [])].reverse().find((m: any) => m.role === 'user');
    const images = Array.isArray(last?.content) ? last.content.filter((p: any) => p?.type === 'image_url').length : 0;
    return {
      content: `You said: ${textOf(last?.content)}${images ? ` [${images} image${images > 1 ? 's' : ''}]` : ''}`,
    };
  };
  /** Token counts every reply reports, shaped like OpenAI's/OpenRouter's `usage` object. */
  usage = { prompt_tokens: 11, completion_tokens: 7 };
  /** When set, `usage.cost` (USD) is reported too, as OpenRouter does. */
  reportCost: number | undefined;
  /** OpenRouter's `GET /credits` balance in USD; unset: the endpoint is unknown (404), as at most providers. */
  credits: { total_credits: number; total_usage: number } | undefined;
  /** How often `GET /credits` was asked. */
  creditChecks = 0;
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

  /** Every image_url part the model was sent, in order (its data URL and the request it came in). */
  get imageParts(): Array<{ url: string; request: number }> {
    return this.requests.flatMap((r, request) =>
      (r.body?.messages ?? []).flatMap((m: any) =>
        Array.isArray(m.content)
          ? m.content.filter((p: any) => p?.type === 'image_url').map((p: any) => ({ url: p.image_url?.url, request }))
          : [],
      ),
    );
  }

  private unauthorized(req: IncomingMessage, res: ServerResponse): boolean {
    const key = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (key && this.apiKeys.has(key)) return false;
    sendJson(res, 401, {
      error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
    });
    return true;
  }

  /** OpenAI's POST /audio/transcriptions: multipart with `file` and `model`; answers {text}. */
  private async transcription(req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    if (this.unauthorized(req, res)) return;
    let form: FormData;
    try {
      form = await readForm(req, raw);
    } catch {
      return sendJson(res, 400, {
        error: { message: 'Could not parse multipart form', type: 'invalid_request_error' },
      });
    }
    const file = form.get('file');
    const record: RecordedTranscription = {
      headers: req.headers,
      model: form.get('model') as string | null,
      responseFormat: form.get('response_format') as string | null,
      fileName: file instanceof File ? file.name : null,
      fileType: file instanceof File ? file.type : null,
      bytes: file instanceof File ? Buffer.from(await file.arrayBuffer()) : Buffer.alloc(0),
    };
    this.transcriptions.push(record);
    if (!(file instanceof File) || !record.model) {
      return sendJson(res, 400, {
        error: { message: "Missing required parameter: 'file' or 'model'.", type: 'invalid_request_error' },
      });
    }
    const text = this.transcribe(record.bytes);
    if (record.responseFormat === 'verbose_json')
      return sendJson(res, 200, {
        task: 'transcribe',
        language: 'english',
        duration: this.audioSeconds,
        text,
        segments: [],
      });
    return sendJson(res, 200, { text });
  }

  /**
   * OpenAI's POST /audio/speech ({model, voice, input, response_format}) answering the audio bytes,
   * and POST /images/generations ({model, prompt, n, size}) answering {created, data:[{b64_json}]}.
   */
  private async media(req: IncomingMessage, res: ServerResponse, kind: 'speech' | 'image') {
    const body = await readJson(req).catch(() => undefined);
    (kind === 'speech' ? this.speeches : this.imageRequests).push({ headers: req.headers, body });
    if (this.unauthorized(req, res)) return;
    const failure = this.mediaFailures.shift();
    if (failure && 'ok' in failure) {
      res.writeHead(200, { 'content-type': failure.ok.type });
      return res.end(failure.ok.body);
    }
    if (failure) return sendJson(res, failure.status, { error: { type: 'invalid_request_error', ...failure.error } });
    if (kind === 'speech') {
      if (typeof body?.input !== 'string' || !body.input || typeof body.voice !== 'string' || !body.model)
        return sendJson(res, 400, {
          error: { message: "Missing required parameter: 'input', 'voice' or 'model'.", type: 'invalid_request_error' },
        });
      if (body.response_format !== undefined && body.response_format !== 'opus')
        return sendJson(res, 400, { error: { message: 'This fake speaks opus only.', type: 'invalid_request_error' } });
      const audio = makeOggOpus(this.speechSeconds(body.input));
      res.writeHead(200, { 'content-type': 'audio/ogg', 'content-length': audio.length });
      return res.end(audio);
    }
    if (typeof body?.prompt !== 'string' || !body.prompt || !body.model)
      return sendJson(res, 400, {
        error: { message: "Missing required parameter: 'prompt'.", type: 'invalid_request_error', param: 'prompt' },
      });
    const [w, hgt] = String(body.size ?? '1024x1024')
      .split('x')
      .map(Number);
    // A small picture whatever size was asked: real bytes, a PNG decoders read, kept cheap for tests.
    const png = makePng(Math.max(1, Math.round((w || 1024) / 128)), Math.max(1, Math.round((hgt || 1024) / 128)));
    return sendJson(res, 200, {
      created: this.created,
      data: [{ b64_json: png.toString('base64'), revised_prompt: body.prompt }],
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method === 'POST' && req.url?.endsWith('/audio/speech')) return this.media(req, res, 'speech');
    if (req.method === 'POST' && req.url?.endsWith('/images/generations')) return this.media(req, res, 'image');
    if (req.method === 'POST' && req.url?.endsWith('/audio/transcriptions')) return this.transcription(req, res);
    if (req.method === 'GET' && req.url?.endsWith('/credits') && this.credits) {
      this.creditChecks++;
      if (this.unauthorized(req, res)) return;
      return sendJson(res, 200, { data: { ...this.credits } });
    }
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
    if ('until' in reply && reply.until) await reply.until;
    if ('status' in reply)
      return sendJson(res, reply.status, { error: { type: 'api_error', ...reply.error } }, reply.headers);
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
