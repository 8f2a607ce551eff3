// Errors raised before a route runs — a bad percent escape, a path segment too long for the
// router, bytes that are not HTTP, a body that never finishes — get the same envelope as the rest.
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { ERROR_STATUS } from '../errors/codes.js';
import { sendError } from './error-handler.js';

/** How long a client may take to send its whole request (headers and body); responses are not bounded by it. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Fastify's `frameworkErrors`: errors of the router, before any hook. */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  // A segment longer than any id cannot name a deployment (DESIGN.md §2: such ids are NOT_FOUND).
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return sendError(reply, new AppError('NOT_FOUND', 'Deployment not found.'));
  return sendError(
    reply,
    new AppError('INVALID_REQUEST', 'The request path is not valid: check its percent-encoding (%XX, UTF-8).'),
  );
}

/** Node's `clientError`: the request could not be parsed or did not arrive in time. */
export function clientErrors(requestTimeoutMs: number) {
  return (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const message =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? `The request did not arrive within ${Math.round(requestTimeoutMs / 1000)} s; send it again.`
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? 'The request headers are too large.'
          : 'The request is not valid HTTP/1.1.';
    const body = JSON.stringify({ error: { code: 'INVALID_REQUEST', message } });
    if (socket.writable)
      socket.write(
        `HTTP/1.1 ${ERROR_STATUS.INVALID_REQUEST} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    socket.destroy();
  };
}
