// Forwards a chat request to the deployment's worker over a pooled keep-alive undici client and
// streams the answer back without buffering. 180 s without an answer, a refused connection or a
// stream that cannot be established are BAD_GATEWAY.
import { Pool } from 'undici';
import { errorEvent, writeSse } from '@berth/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { UsageScanner } from '../services/billing/usage-scanner.js';

export const UPSTREAM_TIMEOUT_MS = 180_000;

const PASS_HEADERS = ['content-type', 'x-assistant-session-id', 'cache-control', 'x-request-id'];

export class ChatProxy {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly timeoutMs = UPSTREAM_TIMEOUT_MS) {}

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      // No cap on connections: every open SSE stream holds one, and in local mode all agents share
      // this origin. Client requests bound the number; idle ones are kept alive for reuse.
      pool = new Pool(origin, {
        connections: null,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** With `scan`, the reply's usage is read as it passes (for metering); returns the scanner. */
  async forward(
    req: FastifyRequest,
    reply: FastifyReply,
    target: { workerUrl: string; gatewayToken: string },
    path: string,
    body?: Buffer,
    scan = false,
  ): Promise<UsageScanner | undefined> {
    const url = new URL(target.workerUrl.replace(/\/+$/, '') + path);
    const abort = new AbortController();
    // A client that goes away cancels the upstream turn.
    const onClose = () => {
      if (!reply.raw.writableFinished) abort.abort();
    };
    reply.raw.on('close', onClose);
    const headers: Record<string, string> = { authorization: `Bearer ${target.gatewayToken}` };
    if (body) headers['content-type'] = 'application/json';
    const session = req.headers['x-assistant-session-id'];
    if (typeof session === 'string') headers['x-assistant-session-id'] = session;

    let res;
    try {
      res = await this.pool(url.origin).request({
        method: body ? 'POST' : 'GET',
        path: url.pathname + url.search,
        headers,
        body,
        signal: abort.signal,
      });
    } catch (err) {
      reply.raw.off('close', onClose);
      if (abort.signal.aborted) {
        reply.hijack();
        return undefined;
      }
      const why =
        (err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT'
          ? `did not answer within ${this.timeoutMs >= 1000 ? `${Math.round(this.timeoutMs / 1000)} s` : `${this.timeoutMs} ms`}`
          : `could not be reached (${(err as Error).message})`;
      throw new AppError(
        'BAD_GATEWAY',
        `The assistant's worker ${why}. Try again; if it persists, redeploy the assistant.`,
      );
    }

    reply.status(res.statusCode);
    for (const name of PASS_HEADERS) {
      const v = res.headers[name];
      if (typeof v === 'string') reply.header(name, v);
    }
    const isStream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
    const scanner = scan && res.statusCode === 200 ? new UsageScanner(isStream) : undefined;
    if (!isStream) {
      if (!scanner) {
        await reply.send(res.body);
        return undefined;
      }
      const buf = Buffer.from(await res.body.arrayBuffer());
      scanner.push(buf);
      await reply.send(buf);
      return scanner;
    }

    // Server-sent events: write chunk by chunk, honouring backpressure, and end with an error
    // event the OpenAI SDK understands if the worker breaks off mid-stream.
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(res.statusCode, {
      ...(reply.getHeaders() as Record<string, string>),
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    try {
      for await (const chunk of res.body) {
        scanner?.push(chunk as Buffer);
        await writeSse(raw, chunk as Buffer, abort.signal);
      }
    } catch (err) {
      if (!abort.signal.aborted && !raw.destroyed) {
        req.log.warn({ err: (err as Error).message }, 'worker broke off the stream');
        raw.write(
          errorEvent({
            code: 'BAD_GATEWAY',
            message: `The assistant's worker broke off the stream (request ${req.id}); try again.`,
          }),
        );
      }
    } finally {
      reply.raw.off('close', onClose);
      if (!raw.destroyed) raw.end();
    }
    return scanner;
  }

  async close() {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
    this.pools.clear();
  }
}
