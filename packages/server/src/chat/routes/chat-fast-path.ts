// Endpoint 10's plain case, answered ahead of Fastify's router and hooks (decision 0027, round
// 22): a POST to the chat route with a JSON body of known length and an API key the key cache
// knows. Fastify's request path around the route cost ~41 µs a chat (17 %) over this listener at
// 50 clients, most of what kept the proxy above 1.5 × the floor's CPU. Everything else (an encoded
// or absolute-form target, a session, a key's first call, a chunked body, an organization header,
// the API switched off, an app that is closing) goes to Fastify before a byte of the body is read, so it
// keeps the one path it had. What runs here is the route's own parts, called, not copied: the
// rate-limit count, completeChat, the proxy's handler and the error envelope.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { apiKeyIn, cachedKeyOwner } from '../../accounts/index.js';
import { writeError } from '../../platform/http/error-handler.js';
import type { RequestCounter } from '../../platform/http/rate-limit.js';
import { baseAndPrivateHeaders } from '../../platform/http/security-headers.js';
import { ORGANIZATION_HEADER } from '../../platform/http/auth.js';
import type { Metrics } from '../../ops/index.js';
import { LazyRequestLogger } from '../../platform/http/request-logger.js';
import type { Services } from '../../services.js';
import { sessionOf, type ChatProxy, type ProxyClient } from '../proxy/chat-proxy.js';
import { completeChat, type ChatDeps } from '../complete-chat.js';
import { CHAT_BODY_LIMIT } from './chat.js';

export const CHAT_ROUTE = '/api/v1/assistants/:deploymentId/chat/completions';
// The route's pattern, spelt plainly: lowercase id, nothing encoded, no query, no dot segment.
const PLAIN_TARGET =
  /^\/api\/v1\/assistants\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/chat\/completions$/;
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);

export interface FastPathOptions {
  logger: Logger;
  /** The per-person rate limit's counter (absent: no limit). */
  count?: RequestCounter;
  metrics?: Metrics;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const paths = new WeakMap<Server, FastPath>();
/** How many chats a server's fast path took. */
export const fastPathServed = (server: Server) => paths.get(server)?.served ?? 0;

/** The deployment id when the request is the plain case; undefined hands it to Fastify. */
function plainChat(req: IncomingMessage): string | undefined {
  if (req.method !== 'POST') return undefined;
  const id = PLAIN_TARGET.exec(req.url ?? '')?.[1];
  if (id === undefined) return undefined;
  const h = req.headers;
  if (!JSON_TYPES.has(h['content-type'] ?? '') || h['transfer-encoding'] !== undefined) return undefined;
  const length = h['content-length'];
  // An empty body is Fastify's (its 400 names what is missing); so is one over the limit (413).
  if (length === undefined || !/^[1-9][0-9]{0,7}$/.test(length) || Number(length) > CHAT_BODY_LIMIT) return undefined;
  // An organization header is identify()'s question (a key may not act for another organization).
  if (h[ORGANIZATION_HEADER] !== undefined) return undefined;
  return id;
}

type Owner = NonNullable<ReturnType<typeof cachedKeyOwner>>;

/**
 * One chat on the fast path, as the proxy's client. A class, not closures: one object a chat, its
 * methods shared (what each chat allocates is what 50 clients pay for; decision 0027, round 22).
 */
class FastChat implements ProxyClient {
  readonly id = randomUUID();
  readonly session: string | undefined;
  private readonly start = performance.now();
  private logger: LazyRequestLogger | undefined;
  private chunks: Buffer[] = [];

  constructor(
    private readonly path: FastPath,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly deploymentId: string,
    private readonly owner: Owner,
  ) {
    this.session = sessionOf(req.headers);
  }

  get log(): LazyRequestLogger {
    this.logger ??= new LazyRequestLogger(this.path.o.logger as never, { reqId: this.id });
    return this.logger;
  }

  elapsed(): number {
    return (performance.now() - this.start) / 1000;
  }

  takeOver() {
    // A streamed answer's status is written by the proxy: a 5xx is logged once it is over.
    if (!this.path.debug) this.res.once('finish', () => this.res.statusCode >= 500 && this.completed());
    return this.res.getHeaders();
  }

  send(status: number, headers: Record<string, string>, body: Buffer) {
    const { res } = this;
    res.statusCode = status;
    for (const name in headers) res.setHeader(name, headers[name]!);
    if (!res.hasHeader('content-type')) res.setHeader('content-type', 'application/octet-stream');
    res.setHeader('content-length', body.length);
    res.end(body);
    if (status >= 500 && !this.path.debug) this.completed();
  }

  removeHeader(name: string) {
    this.res.removeHeader(name);
  }

  run() {
    const { req, res } = this;
    // The headers the app-wide hook sets on every answer with an auth mode (app.ts).
    res.setHeader('x-request-id', this.id);
    baseAndPrivateHeaders(res);
    const { o } = this.path;
    // Guarded: reading the peer's address is a system call, and the line is mostly off.
    if (this.path.debug) {
      const { socket } = req;
      const line = {
        method: req.method,
        url: req.url,
        host: req.headers.host,
        remoteAddress: socket.remoteAddress,
        remotePort: socket.remotePort,
      };
      this.log.debug({ req: line }, 'incoming request');
      res.once('finish', () => this.completed());
    }
    if (o.metrics)
      res.once('finish', () => o.metrics!.observeRequest(CHAT_ROUTE, 'POST', res.statusCode, this.elapsed()));
    // Counted before the body is read, as Fastify's route-level hook counts it: a person past the
    // limit is refused without sending the server up to CHAT_BODY_LIMIT first.
    let counted: ReturnType<RequestCounter>;
    try {
      counted = o.count?.(this.owner.userId, (name, value) => res.setHeader(name, value));
    } catch (err) {
      return this.refuse(err);
    }
    if (counted instanceof Promise)
      counted.then(
        (err) => (err ? this.refuse(err) : this.read()),
        (err) => this.refuse(err),
      );
    else if (counted) this.refuse(counted);
    else this.read();
  }

  private read() {
    const { req, res } = this;
    req.on('data', (c: Buffer) => this.chunks.push(c));
    // A client that leaves mid-body: nothing was asked of the worker, and its socket is closed.
    req.on('error', () => res.destroy());
    req.on('end', () => this.received());
  }

  /** Answered before the body was read: the rest of it is discarded, the connection kept. */
  private refuse(err: unknown) {
    this.fail(err);
    this.req.resume();
  }

  /** The lines DebugRequestLogs writes for Fastify's answers: a 5xx at info, the rest at debug. */
  private completed() {
    const line = { res: { statusCode: this.res.statusCode }, responseTime: this.elapsed() * 1000 };
    if (this.res.statusCode >= 500) this.log.info(line, 'request completed');
    else this.log.debug(line, 'request completed');
  }

  private received() {
    const { chunks } = this;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.chunks = [];
    void this.chat(body);
  }

  private chat(body: Buffer) {
    const { owner } = this;
    return completeChat(
      this.path.s,
      {
        caller: { userId: owner.userId, organizationId: owner.organizationId, keyId: owner.keyId },
        deploymentId: this.deploymentId,
        body,
        slotKey: owner.keyId,
        signedIn: false,
      },
      (target) => this.path.proxy.forward(this, target, '/v1/chat/completions', body),
    ).catch((err) => this.fail(err));
  }

  private fail(err: unknown) {
    if (this.res.headersSent) {
      this.res.destroy();
      return;
    }
    writeError(this.res, err, this.id, this.log);
    if (this.res.statusCode >= 500 && !this.path.debug) this.completed();
  }
}

interface FastPath {
  s: ChatDeps & Pick<Services, 'cache'>;
  proxy: ChatProxy;
  o: FastPathOptions;
  debug: boolean;
  /** Set when the app starts closing: Fastify then answers 503 and closes the connection. */
  closing: boolean;
  /** Chats it took (the parity test asserts which path answered). */
  served: number;
}

/**
 * Puts the fast path in front of `server`'s request listener (Fastify's). The model gateway's
 * listener calls Fastify's routing itself and never reaches it.
 */
export function installChatFastPath(
  server: Server,
  s: ChatDeps & Pick<Services, 'cache'>,
  proxy: ChatProxy,
  o: FastPathOptions,
) {
  const listeners = server.listeners('request') as Handler[];
  if (listeners.length !== 1) throw new Error('the chat fast path expects one request listener (Fastify)');
  const fastify = listeners[0]!;
  server.removeListener('request', fastify);
  const path: FastPath = { s, proxy, o, debug: o.logger.isLevelEnabled('debug'), closing: false, served: 0 };
  paths.set(server, path);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const deploymentId = path.closing ? undefined : plainChat(req);
    const key = deploymentId === undefined ? undefined : apiKeyIn(req.headers, 'apiKeyOrBearer');
    const owner = key === undefined ? undefined : cachedKeyOwner(s, key);
    if (!owner) return fastify(req, res);
    path.served++;
    new FastChat(path, req, res, deploymentId!, owner).run();
  });
  return {
    close() {
      path.closing = true;
    },
  };
}
