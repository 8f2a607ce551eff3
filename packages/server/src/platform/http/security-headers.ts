// Headers every answer carries, and what an authenticated answer adds (issue 28). Set in the
// app-wide onRequest hook, before any route runs, so errors and 429s carry them too; a route that
// needs another Cache-Control sets its own after this.
import type { FastifyReply } from 'fastify';

/** On every answer: no content sniffing (a JSON error is never run as a script), no Referer leak
 * of a URL that carries a token (invitation and sign-up links). */
export function baseHeaders(reply: FastifyReply) {
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
}

/** Answers of routes with an auth mode hold someone's data (CSRF token, keys, usage): no cache keeps them. */
export function privateHeaders(reply: FastifyReply) {
  reply.header('cache-control', 'no-store');
}
