// Turns every error into the spec's envelope. Routes throw; only this file shapes error bodies.
import type { ServerResponse } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../errors/app-error.js';
import { TELEGRAM_TEXT_FORMAT, TELEGRAM_TEXT_RULE } from '@berth/contracts/settings';
import { NO_CONTROL_CHARS } from './schemas/common.js';
import { drainThenClose } from './drain-body.js';

function fromFastify(err: FastifyError, req: FastifyRequest): AppError | undefined {
  if (err.validation) {
    // A path id that is not a UUID cannot name a deployment (DESIGN.md §2); a malformed id after it
    // (a reminder's, a pairing code) names nothing under a deployment that may well exist.
    if (err.validationContext === 'params') {
      const paths = err.validation.map((v) => v.instancePath);
      const other = paths.includes('/deploymentId') ? undefined : paths.find((p) => p.length > 1);
      return new AppError('NOT_FOUND', other ? `No such ${other.slice(1)}.` : 'Deployment not found.');
    }
    return new AppError(
      'INVALID_REQUEST',
      `Invalid request ${err.validationContext ?? 'body'}: ${err.validation.map((v) => describe(v)).join('; ')}`,
      err.validation.map((v) => ({ path: v.instancePath || '/', message: v.message, ...(v.params ?? {}) })),
    );
  }
  switch (err.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('INVALID_REQUEST', 'The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'INVALID_REQUEST',
        `Unsupported Content-Type "${req.headers['content-type'] ?? ''}"; send application/json.`,
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(
        'PAYLOAD_TOO_LARGE',
        `The request body is larger than ${req.routeOptions.bodyLimit ?? req.server.initialConfig.bodyLimit} bytes.`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('INVALID_REQUEST', 'The Content-Length header does not match the body.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('INVALID_REQUEST', 'The request body is not valid JSON.');
  }
  // Fastify's JSON parser throws a SyntaxError marked 400. A SyntaxError without the mark is not the
  // client's body (a stored value that did not parse, say): it is a logged 500, never a 400 that
  // blames a request which had no body (issue 57: a plain GET once answered "not valid JSON").
  if (err instanceof SyntaxError && err.statusCode === 400) {
    return new AppError('INVALID_REQUEST', 'The request body is not valid JSON.');
  }
  // Fastify's other 400s (a URL that does not decode, say) say what was wrong in their own words.
  if (err.statusCode === 400) return new AppError('INVALID_REQUEST', `Bad request: ${err.message}`);
  return undefined;
}

function describe(v: {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}): string {
  const where = v.instancePath ? v.instancePath.slice(1).replace(/\//g, '.') : 'body';
  if (v.keyword === 'additionalProperties') return `unknown key "${String(v.params?.additionalProperty)}"`;
  if (v.keyword === 'required') return `missing required key "${String(v.params?.missingProperty)}"`;
  if (v.keyword === 'minProperties') return 'at least one field is required';
  if (v.keyword === 'x-callback-url') return v.message ?? 'callbackUrl is not allowed';
  if (v.keyword === 'format' && v.params?.format === TELEGRAM_TEXT_FORMAT) return `${where} ${TELEGRAM_TEXT_RULE}`;
  if (v.keyword === 'pattern' && v.params?.pattern === NO_CONTROL_CHARS)
    return `${where} must not contain control characters`;
  const limit = typeof v.params?.limit === 'number' ? v.params.limit.toLocaleString('en') : undefined;
  // Said as sentences a person reads in a form (issue 61: a short password at sign-up showed the
  // validator's "must NOT have fewer than 10 characters"); the details keep the keyword and limit.
  if (limit !== undefined) {
    const plural = (unit: string) => `${limit} ${unit}${limit === '1' ? '' : 's'}`;
    if (v.keyword === 'minLength') return `${where} must be at least ${plural('character')} long`;
    if (v.keyword === 'maxLength') return `${where} can be at most ${plural('character')} long`;
    if (v.keyword === 'minItems') return `${where} needs at least ${plural('item')}`;
    if (v.keyword === 'maxItems') return `${where} can hold at most ${plural('item')}`;
    if (v.keyword === 'minimum') return `${where} must be ${limit} or more`;
    if (v.keyword === 'maximum') return `${where} must be ${limit} or less`;
  }
  return `${where} ${v.message ?? 'is invalid'}`;
}

function envelope(err: AppError) {
  const body: { error: { code: string; message: string; details?: unknown } } = {
    error: { code: err.code, message: err.message },
  };
  if (err.details !== undefined) body.error.details = err.details;
  return body;
}

export function sendError(reply: FastifyReply, err: AppError) {
  if (err.headers) reply.headers(err.headers);
  return reply.status(err.status).type('application/json; charset=utf-8').send(envelope(err));
}

type ErrorLog = { error(obj: object, msg: string): void };

/** The error to answer with: a known one as it is, anything else logged and INTERNAL_ERROR. */
function toAnswer(known: AppError | undefined, err: unknown, requestId: string, log: ErrorLog): AppError {
  if (known) {
    // A deliberate 500 is still a defect someone must find: log it like an unexpected one.
    if (known.status >= 500 && known.code === 'INTERNAL_ERROR') log.error({ err: known }, 'internal error');
    return known;
  }
  log.error({ err }, 'unhandled error');
  return new AppError('INTERNAL_ERROR', 'Internal error; quote the request id when reporting it.', { requestId });
}

/** The same answer on a raw response (the chat path ahead of Fastify), as the error handler gives. */
export function writeError(res: ServerResponse, err: unknown, requestId: string, log: ErrorLog) {
  const known = toAnswer(isAppError(err) ? err : undefined, err, requestId, log);
  const body = JSON.stringify(envelope(known));
  if (known.headers) for (const [name, v] of Object.entries(known.headers)) res.setHeader(name, v);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.statusCode = known.status;
  res.end(body);
}

export function installErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const known = isAppError(err) ? err : fromFastify(err, req);
    // The client is still sending: read the rest before the socket closes (http/drain-body.ts).
    if (known?.code === 'PAYLOAD_TOO_LARGE') drainThenClose(req.raw);
    return sendError(reply, toAnswer(known, err, req.id, req.log));
  });
}
