// Endpoints 10 and 11. The body is kept raw (it is forwarded verbatim) and checked after the
// deployment is known to be ready, so its schema here documents rather than validates.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { ErrorCode } from '../../platform/errors/codes.js';
import { operationSchema } from '../../platform/http/define-route.js';
import { DeploymentIdParams } from '../../platform/http/schemas/common.js';
import { ChatCompletion, ChatCompletionBody, ChatStreamEvent, ModelList, SessionIdHeader } from '../schemas.js';
import { listModels, type ListModelsDeps } from '../resolve-chat-target.js';
import { fastifyClient, type ChatProxy } from '../proxy/chat-proxy.js';
import { completeChat, type ChatDeps } from '../complete-chat.js';

/** What a chat can answer besides its 200; the Responses route, a chat in another shape, too. */
export const CHAT_ERRORS: ErrorCode[] = [
  'UNAUTHORIZED',
  'INVALID_REQUEST',
  'NOT_FOUND',
  'UNSUPPORTED_FRAMEWORK',
  'ASSISTANT_NOT_READY',
  'CREDITS_EXHAUSTED',
  // The key's rate limit, the chat concurrency caps, or the provider's own limit via the worker.
  'RATE_LIMITED',
  'BAD_GATEWAY',
  'API_DISABLED',
  'INTERNAL_ERROR',
];

/** A chat body: text, and for vision deployments an image of up to 5 MB as base64. */
export const CHAT_BODY_LIMIT = 8 * 1024 * 1024;

type Params = Static<typeof DeploymentIdParams>;
const EMPTY_OBJECT = Buffer.from('{}');
const tags = ['Chat'];

export async function chatRoutes(app: FastifyInstance, s: ChatDeps & ListModelsDeps, proxy: ChatProxy) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  // Nothing is validated by Fastify here: the services check in the order the contract needs.
  const skipValidation = () => () => true;

  const chat = operationSchema({
    operationId: 'createChatCompletion',
    summary: 'Chat completions (OpenAI-compatible)',
    tags,
    auth: 'apiKeyOrBearer',
    description:
      'The body is forwarded verbatim to the assistant; with "stream": true the answer is a text/event-stream of chat.completion.chunk events, assistant.tool.progress events and data: [DONE].',
    params: DeploymentIdParams,
    body: ChatCompletionBody,
    headers: { 'X-Assistant-Session-Id': Type.Optional(SessionIdHeader) },
    success: {
      status: 200,
      schema: ChatCompletion,
      stream: {
        schema: ChatStreamEvent,
        description:
          'With "stream": true the answer is text/event-stream: chat.completion.chunk events (the last carries usage), assistant.tool.progress events, an error event if the turn fails, then data: [DONE].',
      },
      headers: {
        'X-Assistant-Session-Id': Type.String({ description: 'The session id of the request, echoed when sent.' }),
      },
      description:
        'A chat completion. With "stream": true, server-sent events instead (text/event-stream, one event per x-berth-stream.schema of this operation).',
    },
    errors: CHAT_ERRORS,
  });
  app.post<{ Params: Params; Body: Buffer }>(
    '/api/v1/assistants/:deploymentId/chat/completions',
    // Room for one image of IMAGE_MAX_BYTES as a data URL; every other route keeps the 1 MiB limit.
    { ...chat, validatorCompiler: skipValidation, bodyLimit: CHAT_BODY_LIMIT },
    async (req, reply) => {
      await completeChat(
        s,
        {
          caller: req,
          deploymentId: req.params.deploymentId,
          // An absent body reads as {} as on every other route with a body (app.ts): its 400 names
          // what is missing. This route has no preValidation hook for it: one hook runner less a chat.
          body: req.body ?? EMPTY_OBJECT,
          slotKey: req.apiKeyId ?? req.userId,
          signedIn: req.sessionId !== undefined,
        },
        (target) => proxy.forward(fastifyClient(req, reply), target, '/v1/chat/completions', req.body),
      );
      return reply;
    },
  );

  app.get<{ Params: Params }>(
    '/api/v1/assistants/:deploymentId/models',
    {
      ...operationSchema({
        operationId: 'listAssistantModels',
        summary: 'List models',
        tags,
        auth: 'apiKeyOrBearer',
        params: DeploymentIdParams,
        success: {
          status: 200,
          schema: ModelList,
          description: 'The single model "assistant-agent", an alias of the configured model.',
        },
        errors: ['UNAUTHORIZED', 'NOT_FOUND', 'UNSUPPORTED_FRAMEWORK', 'API_DISABLED', 'INTERNAL_ERROR'],
      }),
      validatorCompiler: skipValidation,
    },
    async (req) => listModels(s, req, req.params.deploymentId),
  );
}
