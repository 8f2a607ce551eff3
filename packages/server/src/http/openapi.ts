import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';

export async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Berth Assistant Deployment API',
        version: '1.0.0',
        description: 'Purchase, activate, run and talk to conversational assistants.',
        license: { name: 'Proprietary', url: `${publicBaseUrl}/` },
      },
      servers: [{ url: publicBaseUrl }],
      tags: [
        {
          name: 'Assistants',
          description: 'Slot lifecycle: purchase, activate, inspect, update, redeploy, stop, delete.',
        },
        { name: 'Chat', description: 'OpenAI-compatible chat completions and model listing of a deployment.' },
        { name: 'Usage', description: "Metered spend of a deployment's billing period and a byok owner's spend cap." },
      ],
      components: {
        securitySchemes: {
          ApiKeyHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'API key issued by the operator.',
          },
          BearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'The same API key as a Bearer token (chat and models only).',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // Only the versioned API belongs in the document.
    transform: ({ schema, url }) => ({
      schema: url.startsWith('/api/v1/') ? schema : ({ ...(schema ?? {}), hide: true } as never),
      url,
    }),
    hideUntagged: true,
  });
}
