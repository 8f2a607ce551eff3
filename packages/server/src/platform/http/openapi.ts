import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';

const DOCUMENTED = /^\/api\/(v1|auth|keys|organizations|invitations|version)(\/|$)/;

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
        { name: 'Auth', description: 'Sign-up, sign-in and the browser session of the dashboard.' },
        { name: 'Keys', description: "The caller's API keys and those of its organizations." },
        { name: 'Organizations', description: 'Organizations, their members and invitation links.' },
        { name: 'Operations', description: "The operator's view of the running server." },
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
          SessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'berth_session',
            description:
              "The dashboard's browser session (set by sign-up and sign-in). Requests that write must also send the header x-berth-csrf with the csrfToken of the session; x-berth-organization: <organization id> acts as that organization.",
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // Only the versioned API, the account routes and the server's version belong in the document.
    transform: ({ schema, url }) => ({
      schema: DOCUMENTED.test(url) ? schema : ({ ...(schema ?? {}), hide: true } as never),
      url,
    }),
    hideUntagged: true,
  });
}
