// GET /api/version: what build answers (for upgrades: compare before and after).
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operationSchema } from '../platform/http/define-route.js';
import { buildInfo } from './version.js';

const Version = Type.Object(
  {
    version: Type.String({ description: 'The server package version.' }),
    commit: Type.Union([Type.String(), Type.Null()], { description: 'The source commit, when known.' }),
  },
  { additionalProperties: false },
);

export function versionRoute(app: FastifyInstance) {
  app.get(
    '/api/version',
    operationSchema({
      operationId: 'getVersion',
      summary: 'Server version',
      tags: ['Operations'],
      auth: 'public',
      success: { status: 200, schema: Version, description: 'The version and source commit of this server.' },
      errors: ['INTERNAL_ERROR'],
    }),
    async () => buildInfo(),
  );
}
