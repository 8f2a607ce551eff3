// Extra endpoints beside the spec's paths (DESIGN.md §2): usage of the billing period and a byok
// owner's spend cap. Same definition style and ownership rules as endpoints 1-9.
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { dataRoute, onOneAssistant } from '../../platform/http/define-route.js';
import type { DeploymentIdParams } from '../../platform/http/schemas/common.js';
import { LimitsBody, LimitsView, UsageQuery, UsageView } from '../schemas.js';
import type { Services } from '../../services.js';
import { getUsage, setSpendCap } from '../usage-view.js';

type Params = Static<typeof DeploymentIdParams>;
const tags = ['Usage'];

export function usageRoutes(app: FastifyInstance, s: Services) {
  dataRoute<{ Params: Params; Querystring: Static<typeof UsageQuery> }>(
    app,
    {
      method: 'GET',
      url: '/api/v1/assistants/:deploymentId/usage',
      operationId: 'getAssistantUsage',
      summary: 'Get assistant usage',
      ...onOneAssistant(tags),
      description:
        'Spend of the current billing period: allowance, used, remaining and a per-day series. With groupBy (day, model or endUser) also `groups`: replies, tokens and cost per day, per model or per end user. Every model call is metered by the model gateway.',
      query: UsageQuery,
      data: UsageView,
      answer: 'Usage of the current period.',
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_REQUEST', 'API_DISABLED', 'INTERNAL_ERROR'],
    },
    (req) => getUsage(s, req, req.params.deploymentId, req.query.groupBy),
  );

  dataRoute<{ Params: Params; Body: Static<typeof LimitsBody> }>(
    app,
    {
      method: 'PUT',
      url: '/api/v1/assistants/:deploymentId/limits',
      operationId: 'setAssistantLimits',
      summary: 'Set a byok spend cap',
      ...onOneAssistant(tags),
      description:
        'Caps what a byok assistant may spend on its own key per billing period (null removes the cap). Beyond it, chat answers 429 CREDITS_EXHAUSTED.',
      body: LimitsBody,
      data: LimitsView,
      answer: 'The cap now in force.',
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_REQUEST', 'INVALID_INPUT', 'API_DISABLED', 'INTERNAL_ERROR'],
    },
    (req) => setSpendCap(s, req, req.params.deploymentId, req.body),
  );
}
