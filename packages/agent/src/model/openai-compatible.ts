// The real provider: POST {baseUrl}/chat/completions with stream: true, over a pooled undici client.
import type { Pool } from 'undici';
import { type ErrorCode, retryHeadersOf } from '@berth/contracts/errors';
import { readSse } from '@berth/contracts/sse/read';
import { ProviderError, type ModelProvider, type ProviderChunk, type ToolCallDelta } from './provider.js';
import { loadUndici } from '../http/undici.js';

export interface OpenAiCompatibleOptions {
  provider: string;
  baseUrl: string;
  apiKey: string;
  /** How long to wait for the first byte of an answer and between chunks. */
  timeoutMs?: number;
}

// undici loads with the first model call (http/undici.ts), and each origin's pool with its first call.
const pools = new Map<string, { pool?: Pool; origin: string; users: number }>();

/**
 * One pool per provider origin, shared by every agent and key of the host (the key travels in each
 * request's header, not in the connection), with no cap on connections: a call never waits for
 * another's connection. Pools were per key before, capped at 64, so one tenant's slow streams
 * queued only its own calls; but then 1,000 chats on one key waited a median of 27 s (issue 64).
 * Uncapped, no call queues behind any other, whoever's it is; what bounds the connections is what
 * bounds the turns (the per-user gate, the per-bot update slots, the chat API's limits).
 */
function acquire(origin: string) {
  let entry = pools.get(origin);
  if (!entry) {
    entry = { origin, users: 0 };
    pools.set(origin, entry);
  }
  entry.users++;
  return entry;
}

/** The origin's connection pool, made on its first call. */
async function poolOf(entry: { pool?: Pool; origin: string }): Promise<Pool> {
  const { Pool } = await loadUndici();
  entry.pool ??= new Pool(entry.origin, { connections: null, keepAliveTimeout: 30_000 });
  return entry.pool;
}

function release(origin: string) {
  const entry = pools.get(origin);
  if (entry && --entry.users === 0) {
    pools.delete(origin);
    void entry.pool?.close();
  }
}

function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text);
    const msg = body?.error?.message ?? body?.message ?? body?.error;
    if (typeof msg === 'string') return msg.slice(0, 300);
  } catch {
    /* not JSON */
  }
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

/** The gateway's `details.renewsAt` and Retry-After, kept only when they are what they claim to be. */
function renewalOf(text: string, retryAfter: unknown): { renewsAt?: string; retryAfter?: string } {
  let renewsAt: unknown;
  try {
    renewsAt = JSON.parse(text)?.error?.details?.renewsAt;
  } catch {
    /* not JSON */
  }
  return {
    ...(typeof renewsAt === 'string' && !Number.isNaN(Date.parse(renewsAt)) && renewsAt.length <= 40
      ? { renewsAt }
      : {}),
    ...(typeof retryAfter === 'string' && /^\d{1,9}$/.test(retryAfter) ? { retryAfter } : {}),
  };
}

function errorCode(text: string): unknown {
  try {
    return JSON.parse(text)?.error?.code;
  } catch {
    return undefined;
  }
}

/** More parallel tool calls than any model makes; the index is used to place deltas in an array. */
export const MAX_TOOL_CALL_INDEX = 127;

function checkToolCalls(provider: string, calls: unknown): ToolCallDelta[] {
  if (!Array.isArray(calls))
    throw new ProviderError('upstream', provider, undefined, 'sent tool_calls that are not a list');
  for (const c of calls) {
    const index = (c as { index?: unknown })?.index;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) > MAX_TOOL_CALL_INDEX)
      throw new ProviderError(
        'upstream',
        provider,
        undefined,
        `sent a tool call index out of range (${String(index)})`,
      );
  }
  return calls as ToolCallDelta[];
}

export class OpenAiCompatibleProvider implements ModelProvider {
  readonly name: string;
  private readonly url: URL;
  private readonly entry: { pool?: Pool; origin: string };
  private closed = false;

  constructor(private readonly opts: OpenAiCompatibleOptions) {
    this.name = opts.provider;
    this.url = new URL(opts.baseUrl.replace(/\/+$/, '') + '/chat/completions');
    this.entry = acquire(this.url.origin);
  }

  close() {
    if (!this.closed) release(this.url.origin);
    this.closed = true;
  }

  async *stream(body: Record<string, unknown>, signal: AbortSignal): AsyncIterable<ProviderChunk> {
    let res;
    try {
      const pool = this.entry.pool ?? (await poolOf(this.entry));
      res = await pool.request({
        method: 'POST',
        path: this.url.pathname + this.url.search,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          authorization: `Bearer ${this.opts.apiKey}`,
        },
        body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
        signal,
        // Per request: agents sharing a pool may have different patience.
        headersTimeout: this.opts.timeoutMs ?? 120_000,
        bodyTimeout: this.opts.timeoutMs ?? 120_000,
      });
    } catch (err) {
      throw await this.transportError(err, signal);
    }
    if (res.statusCode >= 400) {
      const text = await res.body.text().catch(() => '');
      const detail = errorDetail(text);
      const s = res.statusCode;
      // Berth's own model gateway (managed mode) says when the allowance is spent, in the shared table.
      if (s === 429 && errorCode(text) === ('CREDITS_EXHAUSTED' satisfies ErrorCode))
        throw new ProviderError('credits', this.name, s, detail, renewalOf(text, res.headers['retry-after']));
      if (s === 429)
        throw new ProviderError('rate_limit', this.name, s, detail, undefined, retryHeadersOf(res.headers));
      throw new ProviderError(
        s === 401 || s === 403 ? 'auth' : s < 500 ? 'bad_request' : 'upstream',
        this.name,
        s,
        detail,
      );
    }
    const type = String(res.headers['content-type'] ?? '');
    if (res.statusCode >= 300 || !type.startsWith('text/event-stream')) {
      // A redirect or a 2xx that is not a stream (a captive portal, a proxy's HTML page) is not an
      // answer: treating it as an empty success would show the user a blank reply.
      await res.body.dump().catch(() => {});
      throw new ProviderError(
        'upstream',
        this.name,
        res.statusCode,
        res.statusCode >= 300
          ? 'answered with a redirect'
          : `answered ${type || 'without a content type'}, not a stream`,
      );
    }
    try {
      for await (const ev of readSse(res.body)) {
        if (ev.data === '[DONE]') return;
        let json: any;
        try {
          json = JSON.parse(ev.data);
        } catch {
          continue;
        }
        if (json.error) throw new ProviderError('upstream', this.name, undefined, errorDetail(JSON.stringify(json)));
        const choice = json.choices?.[0];
        const out: ProviderChunk = {};
        if (choice?.delta?.content) out.content = choice.delta.content;
        if (choice?.delta?.tool_calls) out.toolCalls = checkToolCalls(this.name, choice.delta.tool_calls);
        if (choice?.finish_reason) out.finishReason = choice.finish_reason;
        if (json.usage) out.usage = json.usage;
        if (Object.keys(out).length) yield out;
      }
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      throw await this.transportError(err, signal);
    }
  }

  private async transportError(err: unknown, signal: AbortSignal): Promise<Error> {
    if (signal.aborted) return err as Error;
    const { errors } = await loadUndici();
    if (
      err instanceof errors.HeadersTimeoutError ||
      err instanceof errors.BodyTimeoutError ||
      err instanceof errors.ConnectTimeoutError
    ) {
      return new ProviderError('timeout', this.name, undefined, '');
    }
    const { describeNetworkError } = await import('@berth/contracts/net');
    return new ProviderError('unavailable', this.name, undefined, describeNetworkError(err));
  }
}
