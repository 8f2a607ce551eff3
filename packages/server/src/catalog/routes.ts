// GET /api/v1/catalog/models: the model picker's list, for any valid key or session.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { operationSchema } from '../platform/http/define-route.js';
import { DataEnvelope, Nullable } from '../platform/http/schemas/common.js';
import type { Services } from '../services.js';
import { listCatalogModels } from './list-models.js';

const Mode = Type.Union([Type.Literal('byok'), Type.Literal('managed'), Type.Literal('unlimited')]);
const CatalogModelSchema = Type.Object(
  {
    provider: Type.String(),
    id: Type.String({ description: 'The modelId to send on activate or update.' }),
    modes: Type.Array(Mode, { description: 'The API modes a deployment can run this model in.' }),
    pricing: Nullable(
      Type.Object(
        { prompt: Type.Number(), completion: Type.Number() },
        { additionalProperties: false, description: 'USD per million tokens.' },
      ),
    ),
    capabilities: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

export function catalogRoutes(app: FastifyInstance, s: Services) {
  app.get(
    '/api/v1/catalog/models',
    operationSchema({
      operationId: 'listCatalogModels',
      summary: 'List the model catalog',
      description: "The server's models with the modes they run in, their prices and capabilities.",
      tags: ['Assistants'],
      auth: 'apiKey',
      success: {
        status: 200,
        schema: DataEnvelope(Type.Array(CatalogModelSchema)),
        description: 'Every model a deployment may pick.',
      },
      errors: ['UNAUTHORIZED', 'API_DISABLED', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: listCatalogModels(s, req) }),
  );
}
