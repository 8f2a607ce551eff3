// An organization's callback secret (issue 28, finding 9): read and rotated by its owners.
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { operationSchema } from '../../platform/http/define-route.js';
import { DataEnvelope } from '../../platform/http/schemas/common.js';
import { CallbackSecretView, OrganizationIdParams } from '../schemas/accounts.js';
import type { Services } from '../../services.js';
import { readOrganizationSecret, rotateOrganizationSecret } from '../organization-secret.js';

const tags = ['Organizations'];
type Params = Static<typeof OrganizationIdParams>;
const noStore = { 'Cache-Control': Type.Literal('no-store') };

export function organizationSecretRoutes(app: FastifyInstance, s: Services) {
  app.get<{ Params: Params }>(
    '/api/organizations/:id/callback-secret',
    operationSchema({
      operationId: 'getOrganizationCallbackSecret',
      summary: "Get the organization's callback secret",
      tags,
      auth: 'apiKey',
      description:
        "The Standard Webhooks secret the status callbacks of the organization's deployments are signed with, whoever bought them. Owners only.",
      params: OrganizationIdParams,
      success: {
        status: 200,
        schema: DataEnvelope(CallbackSecretView),
        description: 'The secret; never cached.',
        headers: noStore,
      },
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: await readOrganizationSecret(s, req, req.params.id) }),
  );

  app.post<{ Params: Params }>(
    '/api/organizations/:id/callback-secret/rotate',
    operationSchema({
      operationId: 'rotateOrganizationCallbackSecret',
      summary: "Rotate the organization's callback secret",
      tags,
      auth: 'apiKey',
      description:
        'Makes a new secret at once: callbacks sent from now on are signed with it, the old one no longer verifies them. Owners only.',
      params: OrganizationIdParams,
      success: {
        status: 200,
        schema: DataEnvelope(CallbackSecretView),
        description: 'The new secret; never cached.',
        headers: noStore,
      },
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INVALID_REQUEST', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: await rotateOrganizationSecret(s, req, req.params.id) }),
  );
}
