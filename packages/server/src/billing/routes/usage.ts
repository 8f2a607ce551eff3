// Extra endpoints beside the spec's paths (DESIGN.md §2): usage of the billing period and a byok
// owner's spend cap. Same definition style and ownership rules as endpoints 1-9.
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { operationSchema } from '../../platform/http/define-route.js';
import { DataEnvelope, DeploymentIdParams } from '../../platform/http/schemas/common.js';
import { LimitsBody, LimitsView, UsageView } from '../schemas.js';
import type { Services } from '../../services.js';
import { getUsage, setSpendCap } from '../usage-view.js';

type Params = Static<typeof DeploymentIdParams>;
const tags = ['Usage'];

export function usageRoutes(app: FastifyInstance, s: Services) {
  app.get<{ Params: Params }>(
    '/api/v1/assistants/:deploymentId/usage',
    operationSchema({
      operationId: 'getAssistantUsage',
      summary: 'Get assistant usage',
      tags,
      auth: 'apiKey',
      description:
        "Spend of the current billing period: allowance, used, remaining and a per-day series. Managed and unlimited replies are metered by the model gateway, byok replies from the chat API's answers.",
      params: DeploymentIdParams,
      success: { status: 200, schema: DataEnvelope(UsageView), description: 'Usage of the current period.' },
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'API_DISABLED', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: await getUsage(s, req, req.params.deploymentId) }),
  );

  app.put<{ Params: Params; Body: Static<typeof LimitsBody> }>(
    '/api/v1/assistants/:deploymentId/limits',
    operationSchema({
      operationId: 'setAssistantLimits',
      summary: 'Set a byok spend cap',
      tags,
      auth: 'apiKey',
      description:
        'Caps what a byok assistant may spend on its own key per billing period (null removes the cap). Beyond it, chat answers 429 CREDITS_EXHAUSTED.',
      params: DeploymentIdParams,
      body: LimitsBody,
      success: { status: 200, schema: DataEnvelope(LimitsView), description: 'The cap now in force.' },
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_REQUEST', 'INVALID_INPUT', 'API_DISABLED', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: await setSpendCap(s, req, req.params.deploymentId, req.body) }),
  );
}
