// Forwards a chat request to the deployment's worker over a pooled keep-alive undici client and
// streams the answer back without buffering. 180 s without an answer, a refused connection or a
// stream that cannot be established are BAD_GATEWAY.
import { errorEvent, writeSse } from '@berth/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { UsageScanner } from '../services/billing/usage-scanner.js';
import { UpstreamPools } from './upstream-pools.js';

export const UPSTREAM_TIMEOUT_MS = 180_000;

const PASS_HEADERS = ['content-type', 'x-assistant-session-id', 'cache-control', 'x-request-id'];

/**
 * The worker's own 401/403/404 mean it does not (yet) hold this assistant or its current token: a
 * host that just restarted, a redeploy in flight. To the client that is "not ready, retry", not
 * an auth failure of theirs. A redirect is not an answer at all.
 */
function workerRefusal(status: number): AppError | undefined {
  if (status === 401 || status === 403 || status === 404)
    return new AppError(
      'ASSISTANT_NOT_READY',
      "The assistant's worker is being (re)started and does not serve it yet; try again in a few seconds.",
      { status: 'active' },
      { 'retry-after': '2' },
    );
  if (status >= 300 && status < 400)
    return new AppError('BAD_GATEWAY', "The assistant's worker answered with a redirect; redeploy the assistant.");
  return undefined;
}

export class ChatProxy {
  private readonly pools: UpstreamPools;

  constructor(private readonly timeoutMs = UPSTREAM_TIMEOUT_MS) {
    this.pools = new UpstreamPools(timeoutMs);
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
    const upstream = this.pools.get(target.workerUrl.replace(/\/+$/, '') + path);
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
      res = await upstream.pool.request({
        method: body ? 'POST' : 'GET',
        path: upstream.path,
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
      const timedOut = (err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT';
      // The cause (addresses, socket paths) goes to the log under the request id, not to the client.
      if (!timedOut) req.log.warn({ err: (err as Error).message }, 'worker unreachable');
      const why = timedOut
        ? `did not answer within ${this.timeoutMs >= 1000 ? `${Math.round(this.timeoutMs / 1000)} s` : `${this.timeoutMs} ms`}`
        : `could not be reached (request ${req.id})`;
      throw new AppError(
        'BAD_GATEWAY',
        `The assistant's worker ${why}. Try again; if it persists, redeploy the assistant.`,
      );
    }
    const refused = workerRefusal(res.statusCode);
    if (refused) {
      reply.raw.off('close', onClose);
      await res.body.dump().catch(() => {});
      req.log.warn({ workerStatus: res.statusCode }, 'worker refused the request');
      throw refused;
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

  close() {
    return this.pools.close();
  }
}
