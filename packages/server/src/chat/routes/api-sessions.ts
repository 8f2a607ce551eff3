// GET and DELETE /api/v1/assistants/{id}/sessions/{sessionId} (DESIGN §7.6): an API session's
// messages, and forgetting them. Telegram chats are not reachable here.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { operationSchema } from '../../platform/http/define-route.js';
import { DataEnvelope } from '../../platform/http/schemas/common.js';
import { forgetTranscript, getTranscript, type TranscriptDeps } from '../api-sessions.js';

const Params = Type.Object({
  deploymentId: Type.String({ description: 'Deployment id (UUID)' }),
  sessionId: Type.String({
    minLength: 1,
    maxLength: 256,
    description: 'The X-Assistant-Session-Id of the conversation',
  }),
});
type P = Static<typeof Params>;

const TranscriptView = Type.Object(
  {
    id: Type.String(),
    messages: Type.Array(
      Type.Object(
        {
          role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
          content: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export function apiSessionRoutes(app: FastifyInstance, s: TranscriptDeps) {
  const errors = [
    'UNAUTHORIZED',
    'NOT_FOUND',
    'INVALID_REQUEST',
    'ASSISTANT_NOT_READY',
    'UNSUPPORTED_FRAMEWORK',
    'BAD_GATEWAY',
    'API_DISABLED',
    'INTERNAL_ERROR',
  ] as const;

  app.get<{ Params: P }>(
    '/api/v1/assistants/:deploymentId/sessions/:sessionId',
    operationSchema({
      operationId: 'getAssistantSession',
      summary: 'Get an API session’s messages',
      tags: ['Chat'],
      auth: 'apiKey',
      description:
        'The stored conversation of an X-Assistant-Session-Id (API sessions only), oldest first. 404 when nothing is stored under it.',
      params: Params,
      success: { status: 200, schema: DataEnvelope(TranscriptView), description: 'The conversation.' },
      errors: [...errors],
    }),
    async (req) => ({ data: await getTranscript(s, req, req.params.deploymentId, req.params.sessionId) }),
  );

  app.delete<{ Params: P }>(
    '/api/v1/assistants/:deploymentId/sessions/:sessionId',
    operationSchema({
      operationId: 'deleteAssistantSession',
      summary: 'Forget an API session',
      tags: ['Chat'],
      auth: 'apiKey',
      description:
        'Deletes the stored conversation of an X-Assistant-Session-Id; the next chat under it starts afresh.',
      params: Params,
      success: { status: 204, schema: Type.Null(), description: 'Forgotten.' },
      errors: [...errors],
    }),
    async (req, reply) => {
      await forgetTranscript(s, req, req.params.deploymentId, req.params.sessionId);
      return reply.status(204).send();
    },
  );
}
