// Forwards a chat request to the deployment's worker over a pooled keep-alive undici client and
// streams the answer back without buffering. 180 s without an answer, a refused connection or a
// stream that cannot be established are BAD_GATEWAY.
//
// The request goes out through undici's dispatch() with one small handler object (Forwarding) that
// writes an SSE answer straight into the client's socket: no Readable body, no for-await
// generator, no AbortController. That state is held by every open stream, so it is what 10,000
// streams cost (decision 0015, third pass); undici's own pause()/abort() give backpressure and
// cancellation.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { errorEvent } from '@berth/contracts';
import { isRetryHeader } from '@berth/contracts/errors';
import type { Dispatcher } from 'undici';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors/app-error.js';
import { UpstreamPools } from './upstream-pools.js';
import { PassThrough } from './pass-through.js';

export const UPSTREAM_TIMEOUT_MS = 180_000;

// retry-after and x-should-retry: a worker's CREDITS_EXHAUSTED must reach the client as the
// control plane's own does, or the stock SDKs retry it.
const PASS_HEADERS = [
  'content-type',
  'x-assistant-session-id',
  'cache-control',
  'x-request-id',
  'retry-after',
  'x-should-retry',
];

/** The headers of the worker's answer that reach the client: the list, and a 429's retry information. */
function passedOn(status: number, headers: Dispatcher.ResponseData['headers'] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const name of PASS_HEADERS) {
    const v = headers[name];
    if (typeof v === 'string') out[name] = v;
  }
  // The provider's x-ratelimit-* and retry-after-ms, relayed by the agent (contracts' retry-headers);
  // looked for on a 429 only, so a chat's answer does not pay for the walk.
  if (status === 429)
    for (const name in headers) {
      const v = headers[name];
      if (typeof v === 'string' && isRetryHeader(name)) out[name] = v;
    }
  return out;
}

/**
 * Berth's own request budget (platform/http/rate-limit.ts). On a 429 of the worker (the model
 * provider's limit, spent credits) they would tell the client that hundreds of requests are left,
 * beside a refusal that is about another budget: that 429 goes out without them.
 */
const OWN_BUDGET_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

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

/**
 * The client's side of a forwarded request: Fastify's request and reply (fastifyClient), or the
 * chat route's path ahead of Fastify (chat/routes/chat-fast-path.ts). One handler serves both, so
 * what the client sees cannot differ between them.
 */
export interface ProxyClient {
  readonly res: ServerResponse;
  readonly id: string;
  readonly log: { warn(obj: object, msg: string): void };
  /** The X-Assistant-Session-Id the client sent, passed on to the worker. */
  readonly session: string | undefined;
  /** Seconds since the request arrived. */
  elapsed(): number;
  /** The answer is written here from now on, not by the framework: the headers it had set. */
  takeOver(): Record<string, string | number | string[] | undefined>;
  /** A whole (buffered) answer: the worker's status, the headers passed on, its body. */
  send(status: number, headers: Record<string, string>, body: Buffer): Promise<void> | void;
  /** Takes back a header set before the worker answered (the rate limit's). */
  removeHeader(name: string): void;
  /** Rewrites a streamed answer on its way (the Responses API's events); absent: passed as it comes. */
  readonly rewrite?: StreamRewrite;
}

/** What a streamed answer becomes, piece by piece. */
export interface StreamRewrite {
  chunk(piece: Buffer): string;
  /**
   * The answer's last piece, once the worker's stream has ended. A promise holds the end back until
   * it settles (the Responses API stores a response before telling the client it is complete); it
   * must not reject. Awaited once per stream, never per piece.
   */
  end(): string | Promise<string>;
}

/** The X-Assistant-Session-Id a request carries, once (a repeated header is not one id). */
export function sessionOf(headers: IncomingHttpHeaders): string | undefined {
  const session = headers['x-assistant-session-id'];
  return typeof session === 'string' ? session : undefined;
}

/** A Fastify request and reply as the proxy's client. */
export function fastifyClient(req: FastifyRequest, reply: FastifyReply): ProxyClient {
  return {
    res: reply.raw,
    id: req.id,
    log: req.log,
    session: sessionOf(req.headers),
    elapsed: () => reply.elapsedTime / 1000,
    takeOver() {
      reply.hijack();
      return reply.getHeaders();
    },
    async send(status, headers, body) {
      reply.status(status);
      for (const [name, v] of Object.entries(headers)) reply.header(name, v);
      await reply.send(body);
    },
    removeHeader(name) {
      reply.removeHeader(name);
    },
  };
}

/** The client's side is gone (closed or destroyed socket): nothing it asked for should run. */
function clientGone(raw: ServerResponse): boolean {
  return raw.destroyed || raw.req.socket?.destroyed === true;
}

/** How a forwarded request ended, for the route to answer with. */
type Outcome =
  | { kind: 'gone' }
  | { kind: 'streamed' }
  | { kind: 'buffered'; status: number; headers: Dispatcher.ResponseData['headers'] | undefined; body: Buffer }
  | { kind: 'failed'; error: AppError | Error };

const CLIENT_GONE = new Error('the client went away');

/** Told about forwarded chats (ops/metrics.ts); absent when metrics are off, so nothing is measured. */
export interface ProxyObserver {
  /** The worker's answer began: seconds since the request arrived. */
  firstByte(seconds: number): void;
}

/** One per forwarded request: undici calls it as the worker answers. */
class Forwarding extends PassThrough {
  private streaming = false;
  private refused = false;
  private chunks: Buffer[] = [];
  private status = 0;
  private headers: Dispatcher.ResponseData['headers'] | undefined;

  constructor(
    private readonly client: ProxyClient,
    private readonly done: (o: Outcome) => void,
    private readonly observer: ProxyObserver | undefined,
  ) {
    // A client that goes away cancels the worker's turn.
    super(client.res, CLIENT_GONE);
  }

  protected start(status: number, headers: Dispatcher.ResponseData['headers']) {
    this.observer?.firstByte(this.client.elapsed());
    const refused = workerRefusal(status);
    if (refused) {
      // Its body is read and dropped, so the connection stays usable.
      this.refused = true;
      this.client.log.warn({ workerStatus: status }, 'worker refused the request');
      this.finish({ kind: 'failed', error: refused });
      return;
    }
    this.status = status;
    const type = headers['content-type'];
    this.streaming = typeof type === 'string' && type.startsWith('text/event-stream');
    // Kept only for a buffered answer: a stream would hold the object for its whole life.
    if (!this.streaming) this.headers = headers;
    if (!this.streaming) return;

    // Server-sent events: written chunk by chunk as they come, honouring backpressure, and ended
    // with an error event the OpenAI SDK understands if the worker breaks off mid-stream.
    const out: Record<string, string | string[] | number> = {};
    for (const [k, v] of Object.entries(this.client.takeOver())) if (v !== undefined) out[k] = v;
    Object.assign(out, passedOn(status, headers));
    out['x-accel-buffering'] = 'no';
    out.connection = 'keep-alive';
    this.client.res.writeHead(status, out);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer) {
    if (this.refused) return;
    if (!this.streaming) {
      this.chunks.push(chunk);
      return;
    }
    const rewrite = this.client.rewrite;
    if (!rewrite) {
      this.pass(controller, chunk);
      return;
    }
    const out = rewrite.chunk(chunk);
    if (out.length > 0) this.pass(controller, Buffer.from(out));
  }

  onResponseEnd() {
    if (this.refused) return;
    if (!this.streaming) {
      const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      this.finish({ kind: 'buffered', status: this.status, headers: this.headers, body });
      return;
    }
    const last = this.client.rewrite?.end();
    if (last instanceof Promise) {
      // The worker is done: a client leaving now has nothing to cancel, and what it waits for
      // (the store write) goes on without it.
      this.release();
      void last.then((tail) => {
        this.client.res.end(tail);
        this.done({ kind: 'streamed' });
      });
      return;
    }
    this.client.res.end(last);
    this.finish({ kind: 'streamed' });
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error) {
    if (this.refused) return;
    const raw = this.client.res;
    if (this.gone || clientGone(raw)) {
      if (!this.streaming) this.client.takeOver();
      this.finish({ kind: 'gone' });
      return;
    }
    if (this.streaming) {
      this.client.log.warn({ err: err.message }, 'worker broke off the stream');
      raw.end(
        errorEvent({
          code: 'BAD_GATEWAY',
          message: `The assistant's worker broke off the stream (request ${this.client.id}); try again.`,
        }),
      );
      this.finish({ kind: 'streamed' });
      return;
    }
    this.finish({ kind: 'failed', error: err });
  }

  private finish(o: Outcome) {
    this.release();
    this.done(o);
  }
}

export class ChatProxy {
  private readonly pools: UpstreamPools;
  observer: ProxyObserver | undefined;
  /**
   * Worker URL → path → its pool and request path: parsed once, not on every request. Two maps, not
   * one keyed by the joined URL: the worker URL is the cached target's own string and the path a
   * literal, whose hashes V8 keeps, where a freshly joined ~100-character key is flattened and
   * hashed on every chat (docs/decisions/0027-scale.md, round 10).
   */
  private readonly targets = new Map<string, Map<string, { pool: Dispatcher; path: string }>>();

  constructor(
    private readonly timeoutMs = UPSTREAM_TIMEOUT_MS,
    /** Workers are being restored (start-up, an agent host restart): see `answer`. */
    private readonly restoring: () => boolean = () => false,
  ) {
    this.pools = new UpstreamPools(timeoutMs);
  }

  private upstream(workerUrl: string, path: string) {
    let byPath = this.targets.get(workerUrl);
    let t = byPath?.get(path);
    if (!t) {
      if (!byPath) {
        if (this.targets.size >= 10_000) this.targets.clear();
        byPath = new Map();
        this.targets.set(workerUrl, byPath);
      }
      t = this.pools.get(workerUrl.replace(/\/+$/, '') + path);
      byPath.set(path, t);
    }
    return t;
  }

  /**
   * Resolves once the answer is written or the client is gone (the model gateway meters the calls).
   * Not an async function: a suspended frame would be held by every open stream for its lifetime.
   */
  forward(
    client: ProxyClient,
    target: { workerUrl: string; gatewayToken: string },
    path: string,
    body?: Buffer,
  ): Promise<void> {
    // A client that left while the request was checked and admitted costs the worker nothing.
    if (clientGone(client.res)) {
      client.takeOver();
      return Promise.resolve();
    }
    const upstream = this.upstream(target.workerUrl, path);
    const headers: Record<string, string> = { authorization: `Bearer ${target.gatewayToken}` };
    if (body) headers['content-type'] = 'application/json';
    if (client.session !== undefined) headers['x-assistant-session-id'] = client.session;

    return new Promise<Outcome>((done) => {
      const handler = new Forwarding(client, done, this.observer);
      upstream.pool.dispatch({ method: body ? 'POST' : 'GET', path: upstream.path, headers, body }, handler);
    }).then((outcome) => this.answer(client, outcome));
  }

  private async answer(client: ProxyClient, outcome: Outcome): Promise<void> {
    switch (outcome.kind) {
      case 'gone':
      case 'streamed':
        return;
      case 'buffered': {
        if (outcome.status === 429) for (const name of OWN_BUDGET_HEADERS) client.removeHeader(name);
        await client.send(outcome.status, passedOn(outcome.status, outcome.headers), outcome.body);
        return;
      }
      case 'failed': {
        if (outcome.error instanceof AppError) throw outcome.error;
        const err = outcome.error as Error & { code?: string };
        const timedOut = err.code === 'UND_ERR_HEADERS_TIMEOUT';
        // After a restart the store still holds the worker URLs of the host before it (the local
        // host's socket is new each start) until the restoring pass has created each worker again:
        // such a worker is not there yet, which is what ASSISTANT_NOT_READY says (issue 57, finding 2).
        if (!timedOut && this.restoring()) {
          client.log.warn({ err: err.message }, 'worker unreachable while workers are restored');
          throw new AppError(
            'ASSISTANT_NOT_READY',
            "The assistant's worker is being restored after a restart and does not serve it yet; try again in a few seconds.",
            { status: 'active' },
            { 'retry-after': '2' },
          );
        }
        // The cause (addresses, socket paths) goes to the log under the request id, not to the client.
        if (!timedOut) client.log.warn({ err: err.message }, 'worker unreachable');
        const why = timedOut
          ? `did not answer within ${this.timeoutMs >= 1000 ? `${Math.round(this.timeoutMs / 1000)} s` : `${this.timeoutMs} ms`}`
          : `could not be reached (request ${client.id})`;
        throw new AppError(
          'BAD_GATEWAY',
          `The assistant's worker ${why}. Try again; if it persists, redeploy the assistant.`,
        );
      }
    }
  }

  close() {
    return this.pools.close();
  }
}
