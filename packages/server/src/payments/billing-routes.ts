// Self-serve billing beside the spec's paths (DESIGN §9.3): where a paid slot's billing is managed,
// and the local provider's cancellation. Parse, call one verb, shape the envelope.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { toRecord } from '../domain/deployment.js';
import { assistantRoute } from '../platform/http/define-route.js';
import type { Services } from '../services.js';
import { cancelLocalSubscription, openBillingPortal } from './manage-billing.js';

const tags = ['Assistants'];

const BillingPortalView = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      description:
        "Stripe's Customer Portal for this slot's subscription (cancel, card, invoices; valid a few minutes), or the local provider's billing page.",
    }),
  },
  { additionalProperties: false },
);

export function billingRoutes(app: FastifyInstance, s: Services) {
  assistantRoute(
    app,
    tags,
    {
      method: 'POST',
      url: '/api/v1/assistants/:deploymentId/billing-portal',
      operationId: 'openAssistantBillingPortal',
      summary: "Open a paid slot's billing portal",
      description:
        "A link where the owner manages the slot's subscription. With Stripe it is a Customer Portal session that returns to the slot's dashboard page; a cancellation there arrives as a webhook and stops the assistant. 409 INVALID_STATE while the slot is unpaid.",
      data: BillingPortalView,
      answer: 'Where to manage billing.',
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_STATE', 'BAD_GATEWAY', 'API_DISABLED', 'INTERNAL_ERROR'],
    },
    (req) => openBillingPortal(s, req, req.params.deploymentId),
  );

  assistantRoute(
    app,
    tags,
    {
      method: 'POST',
      url: '/api/v1/assistants/:deploymentId/subscription/cancel',
      operationId: 'cancelAssistantSubscription',
      summary: "Cancel a slot's subscription (local payments)",
      description:
        "With the local payment provider, cancels the slot's subscription as Stripe's portal would: the slot becomes canceled and its assistant stops (its users' data is kept). Under Stripe, 409 INVALID_STATE: cancel in the billing portal.",
      data: Type.Ref('DeploymentRecord'),
      answer: 'The deployment record, canceled.',
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_STATE', 'API_DISABLED', 'INTERNAL_ERROR'],
    },
    async (req) => toRecord(await cancelLocalSubscription(s, req, req.params.deploymentId)),
  );
}
