// One description per operation feeds Fastify's validation, the response serializers (which drop
// any field a schema does not name) and the OpenAPI document.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, RouteGenericInterface } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Type } from 'typebox';
import type { ErrorCode } from '../errors/codes.js';
import { DataEnvelope, DeploymentIdParams, errorResponses } from './schemas/common.js';
import type { AuthMode } from './auth.js';

export interface OperationDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: AuthMode;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  headers?: Record<string, TSchema>;
  success: {
    status: number;
    schema: TSchema;
    description: string;
    /**
     * The answer's other form, when the body asks for a stream: documented beside the operation
     * (STREAM_EXTENSION), not as a second media type of the 200, so that generated clients type the
     * 200 as the JSON form alone (a 200 of two media types is a union their idiomatic code cannot read).
     */
    stream?: { schema: TSchema; description: string };
    /** Response headers worth documenting (the echoed session id). */
    headers?: Record<string, TSchema>;
  };
  errors: ErrorCode[];
}

/**
 * What identifying the caller can answer besides the operation's own errors: a session write
 * without its CSRF token (403), x-berth-organization naming an organization the user is not in
 * (404) or sent with an API key (400); every identified caller counts against a rate limit.
 */
const AUTH_ERRORS: Record<AuthMode, ErrorCode[]> = {
  apiKey: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INVALID_REQUEST', 'RATE_LIMITED'],
  apiKeyOrBearer: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INVALID_REQUEST', 'RATE_LIMITED'],
  session: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'],
  // Sign-in and sign-up are limited per address and email (accounts/login-limit.ts).
  public: ['RATE_LIMITED'],
};

const SECURITY: Record<AuthMode, Array<Record<string, string[]>>> = {
  apiKey: [{ ApiKeyHeader: [] }, { SessionCookie: [] }],
  apiKeyOrBearer: [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { SessionCookie: [] }],
  session: [{ SessionCookie: [] }],
  public: [],
};

/**
 * The operation-level extension that documents a streamed answer: its media type, when it is sent
 * and the schema of one event. OpenAPI 3.1 has no way to say "this 200 is JSON unless the body asks
 * for a stream" (3.2's itemSchema is not read by the generators yet); @fastify/swagger copies x-
 * keys of a route's schema to its operation as they are.
 */
export const STREAM_EXTENSION = 'x-berth-stream';

export function operationSchema(op: OperationDoc) {
  // The key is declared by the security schemes only: as a header parameter too, generated clients
  // would demand it on every call instead of taking it once.
  const headers = op.headers ? Type.Object(op.headers) : undefined;
  const { status, schema, description, stream, headers: replyHeaders } = op.success;
  const success = status === 204 ? Type.Null({ description }) : { ...schema, description };
  return {
    schema: {
      operationId: op.operationId,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: op.tags,
      security: SECURITY[op.auth],
      ...(stream
        ? {
            [STREAM_EXTENSION]: {
              contentType: 'text/event-stream',
              description: stream.description,
              schema: stream.schema,
            },
          }
        : {}),
      ...(op.params ? { params: op.params } : {}),
      ...(op.query ? { querystring: op.query } : {}),
      ...(op.body ? { body: op.body } : {}),
      ...(headers ? { headers } : {}),
      response: {
        [status]: replyHeaders ? { ...success, headers: replyHeaders } : success,
        // Any request can carry a body over the limit (413), a body-less POST (stop) included.
        ...errorResponses([...new Set([...op.errors, ...AUTH_ERRORS[op.auth], 'PAYLOAD_TOO_LARGE' as const])]),
      },
    },
    config: { auth: op.auth },
  };
}

/** What a read of one assistant can answer: no caller, not the caller's (or no such) assistant, API off. */
export const ASSISTANT_READ_ERRORS: ErrorCode[] = ['UNAUTHORIZED', 'NOT_FOUND', 'API_DISABLED', 'INTERNAL_ERROR'];

/** What every operation on one assistant (`/api/v1/assistants/:deploymentId/…`) states alike. */
export const onOneAssistant = (tags: string[]): Pick<OperationDoc, 'tags' | 'auth' | 'params'> => ({
  tags,
  auth: 'apiKey',
  params: DeploymentIdParams,
});

/** An operation that answers `{ data }`: the envelope, its status and its schema stated once. */
export interface DataOperation extends Omit<OperationDoc, 'success'> {
  method: HTTPMethods;
  url: string;
  /** The schema of `data`. */
  data: TSchema;
  /** What a success holds (its response's description). */
  answer: string;
  /** 200 unless the operation creates (201) or only accepts (202). */
  status?: 200 | 201 | 202;
}

/** Registers an operation whose handler returns the `data` of its answer; the route wraps it. */
export function dataRoute<G extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  { method, url, data, answer, status = 200, ...doc }: DataOperation,
  handler: (req: FastifyRequest<G>, reply: FastifyReply) => Promise<unknown>,
): void {
  app.route({
    method,
    url,
    ...operationSchema({ ...doc, success: { status, schema: DataEnvelope(data), description: answer } }),
    // The schemas above validated the request into G's shape before the handler runs.
    handler: async (req, reply) =>
      reply.status(status).send({ data: await handler(req as unknown as FastifyRequest<G>, reply) }),
  });
}

/** An operation on one assistant as its route states it: the rest comes from onOneAssistant. */
export type AssistantOperation = Omit<DataOperation, keyof ReturnType<typeof onOneAssistant>>;

/** The request of an operation on one assistant: its other parts (G) and the assistant's id. */
export type OnOneAssistant<G extends RouteGenericInterface = RouteGenericInterface> = G & {
  Params: Static<typeof DeploymentIdParams>;
};

/**
 * Registers an operation on one assistant (`/api/v1/assistants/:deploymentId/…`) that answers
 * `{ data }`: what every such operation states alike (onOneAssistant) is not said again by each.
 */
export function assistantRoute<G extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  tags: string[],
  op: AssistantOperation,
  handler: (req: FastifyRequest<OnOneAssistant<G>>, reply: FastifyReply) => Promise<unknown>,
): void {
  dataRoute<OnOneAssistant<G>>(app, { ...op, ...onOneAssistant(tags) }, handler);
}
