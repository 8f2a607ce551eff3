// The caller's API keys (dashboard and `berth keys`): list, create (secret shown once), revoke.
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { dataRoute, operationSchema } from '../../platform/http/define-route.js';
import { CreatedKey, CreateKeyBody, KeyIdParams, KeyView } from '../schemas/accounts.js';
import type { Services } from '../../services.js';
import { createKey, listKeys, revokeKey } from '../api-keys.js';

const tags = ['Keys'];

export function keyRoutes(app: FastifyInstance, s: Services) {
  dataRoute(
    app,
    {
      method: 'GET',
      url: '/api/keys',
      operationId: 'listApiKeys',
      summary: 'List API keys',
      tags,
      auth: 'apiKey',
      description:
        "The caller's personal keys and the keys of its organizations (an organization's key sees its organization's keys). Secrets are never listed.",
      data: Type.Array(KeyView),
      answer: 'Keys, oldest first.',
      errors: ['UNAUTHORIZED', 'INTERNAL_ERROR'],
    },
    (req) => listKeys(s, req),
  );

  dataRoute<{ Body: Static<typeof CreateKeyBody> }>(
    app,
    {
      method: 'POST',
      url: '/api/keys',
      operationId: 'createApiKey',
      summary: 'Create an API key',
      tags,
      auth: 'apiKey',
      description:
        'With organizationId (or as an organization) the key acts for that organization; the caller must be a member. The secret is in this answer only. A person holds at most MAX_KEYS_PER_USER live keys, personal and for organizations together (409 QUOTA_EXCEEDED).',
      body: CreateKeyBody,
      data: CreatedKey,
      answer: 'The key, with its secret shown once.',
      status: 201,
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INVALID_REQUEST', 'QUOTA_EXCEEDED', 'INTERNAL_ERROR'],
    },
    (req) => createKey(s, req, req.body),
  );

  app.delete<{ Params: Static<typeof KeyIdParams> }>(
    '/api/keys/:id',
    operationSchema({
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      tags,
      auth: 'apiKey',
      description: "One's own key, or any key of an organization one owns. Refused by every server within seconds.",
      params: KeyIdParams,
      success: { status: 204, schema: Type.Null(), description: 'Revoked.' },
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INVALID_REQUEST', 'INTERNAL_ERROR'],
    }),
    async (req, reply) => {
      await revokeKey(s, req, req.params.id);
      return reply.status(204).send();
    },
  );
}
