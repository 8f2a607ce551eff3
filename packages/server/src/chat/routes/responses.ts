// POST /api/v1/assistants/{id}/responses and GET …/responses/{responseId} (issue 65): the
// Responses API that newer OpenAI clients default to, at the same base URL as chat completions.
// Registered in chat's scope, whose JSON parser keeps the body raw: the use case checks it in
// chat's order (ownership and readiness first), so the schema here documents.
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { AppError } from '../../platform/errors/app-error.js';
import { STORED_RESPONSES_KEPT } from '../../platform/store/limits.js';
import { operationSchema } from '../../platform/http/define-route.js';
import { DeploymentIdParams } from '../../platform/http/schemas/common.js';
import type { ChatProxy } from '../proxy/chat-proxy.js';
import { resolveChatTarget } from '../resolve-chat-target.js';
import { createResponse, type ResponsesDeps } from '../responses/create-response.js';
import { ResponseCreateBody, ResponseIdParams, ResponseObject, ResponseStreamEvent } from '../responses/schemas.js';
import { CHAT_BODY_LIMIT, CHAT_ERRORS } from './chat.js';

const tags = ['Chat'];

export function responsesRoutes(app: FastifyInstance, s: ResponsesDeps, proxy: ChatProxy) {
  const skipValidation = () => () => true;

  app.post<{ Params: Static<typeof DeploymentIdParams>; Body: Buffer }>(
    '/api/v1/assistants/:deploymentId/responses',
    {
      ...operationSchema({
        operationId: 'createResponse',
        summary: 'Responses (OpenAI-compatible)',
        tags,
        auth: 'apiKeyOrBearer',
        description:
          'The OpenAI Responses API over the same assistant, limits and metering as chat completions. `input` is the user turn (a string or message items); `instructions` a system message for this call; `previous_response_id` continues a stored response\'s conversation. Other chat parameters pass through to the model. With "stream": true the answer is a text/event-stream of response.* events.',
        params: DeploymentIdParams,
        body: ResponseCreateBody,
        success: {
          status: 200,
          schema: ResponseObject,
          stream: {
            schema: ResponseStreamEvent,
            description:
              'With "stream": true the answer is text/event-stream: each event is `event: <type>` with the object as its data, response.created first and response.completed (the whole response) last, once the response is stored (a GET right after finds it); response.failed instead when it could not be stored.',
          },
          description:
            'A response. With "stream": true, server-sent events instead (text/event-stream, one event per x-berth-stream.schema of this operation).',
        },
        errors: CHAT_ERRORS,
      }),
      validatorCompiler: skipValidation,
      bodyLimit: CHAT_BODY_LIMIT,
    },
    async (req, reply) => {
      await createResponse(s, proxy, req, reply);
      return reply;
    },
  );

  app.get<{ Params: Static<typeof ResponseIdParams> }>(
    '/api/v1/assistants/:deploymentId/responses/:responseId',
    {
      ...operationSchema({
        operationId: 'getResponse',
        summary: 'Get a stored response',
        tags,
        auth: 'apiKeyOrBearer',
        description:
          'A response created with store (the default): the newest 1000 of each assistant are kept, on every replica and across restarts, and deleted with the assistant. 404 for one created with "store": false, an older one, or another assistant\'s.',
        params: ResponseIdParams,
        success: { status: 200, schema: ResponseObject, description: 'The response.' },
        errors: [
          'UNAUTHORIZED',
          'NOT_FOUND',
          'UNSUPPORTED_FRAMEWORK',
          'ASSISTANT_NOT_READY',
          'API_DISABLED',
          'INTERNAL_ERROR',
        ],
      }),
      validatorCompiler: skipValidation,
    },
    async (req, reply) => {
      // Ownership and readiness as chat's: another owner's assistant is a 404 before any lookup.
      await resolveChatTarget(s, req, req.params.deploymentId);
      const r = await s.responses.find(req.params.deploymentId, req.params.responseId);
      if (r === undefined)
        throw new AppError(
          'NOT_FOUND',
          `No stored response of this assistant has this id (store: false is never stored; the newest ${STORED_RESPONSES_KEPT} of each assistant are kept).`,
        );
      // Stored as it was served: sent as it is, not parsed and serialized again.
      return reply.type('application/json; charset=utf-8').send(r);
    },
  );
}
