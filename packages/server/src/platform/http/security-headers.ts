// Headers every answer carries, and what an authenticated answer adds (issue 28). Set in the
// app-wide onRequest hook, before any route runs, so errors and 429s carry them too; a route that
// needs another Cache-Control sets its own after this.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** On every answer: no content sniffing (a JSON error is never run as a script), no Referer leak
 * of a URL that carries a token (invitation and sign-up links). */
const BASE = [
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
] as const;
/** Answers of routes with an auth mode hold someone's data (CSRF token, keys, usage): no cache keeps them. */
const PRIVATE = ['cache-control', 'no-store'] as const;

export function baseHeaders(reply: FastifyReply) {
  for (const [name, value] of BASE) reply.header(name, value);
}

export function privateHeaders(reply: FastifyReply) {
  reply.header(PRIVATE[0], PRIVATE[1]);
}

/** Both sets on a raw response: the chat route's path ahead of Fastify (chat-fast-path.ts). */
export function baseAndPrivateHeaders(res: ServerResponse) {
  for (const [name, value] of BASE) res.setHeader(name, value);
  res.setHeader(PRIVATE[0], PRIVATE[1]);
}
