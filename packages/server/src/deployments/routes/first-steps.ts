// Beside the spec's paths (DESIGN.md §2): who the caller is, and the checkout link of an unpaid
// slot, so the CLI and a second device can find them again.
import type { FastifyInstance } from 'fastify';
import { assistantRoute, dataRoute } from '../../platform/http/define-route.js';
import { AccountView, CheckoutLinkView, ConnectView, PlanView } from '../schemas/first-steps.js';
import { Type } from 'typebox';
import { listPlans, checkoutLink } from '../../payments/index.js';
import { connectInfo } from '../connect-info.js';
import type { Services } from '../../services.js';
import { whoami } from '../../accounts/index.js';

export function firstStepsRoutes(app: FastifyInstance, s: Services) {
  dataRoute(
    app,
    {
      method: 'GET',
      url: '/api/auth/whoami',
      operationId: 'whoami',
      summary: 'Who am I',
      tags: ['Auth'],
      auth: 'apiKey',
      description: 'The account behind this API key or session, the organization it acts for, and the key itself.',
      data: AccountView,
      answer: 'The caller.',
      errors: ['UNAUTHORIZED', 'INTERNAL_ERROR'],
    },
    (req) => whoami(s, req),
  );

  assistantRoute(
    app,
    ['Assistants'],
    {
      method: 'GET',
      url: '/api/v1/assistants/:deploymentId/checkout',
      operationId: 'getAssistantCheckout',
      summary: 'Get the checkout link of an unpaid slot',
      description:
        'The link that pays for a purchased slot, for paying from another device. 409 INVALID_STATE once paid, or when the checkout has expired.',
      data: CheckoutLinkView,
      answer: 'Where to pay.',
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_STATE', 'API_DISABLED', 'INTERNAL_ERROR'],
    },
    (req) => checkoutLink(s, req, req.params.deploymentId),
  );

  assistantRoute(
    app,
    ['Assistants'],
    {
      method: 'GET',
      url: '/api/v1/assistants/:deploymentId/connect',
      operationId: 'getAssistantConnection',
      summary: 'How to reach an active assistant',
      description:
        "The base URL and model name for OpenAI-compatible clients, and the Telegram bot's @username and t.me link. 409 INVALID_STATE unless the assistant is active.",
      data: ConnectView,
      answer: 'Where and how to reach it.',
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_STATE', 'API_DISABLED', 'INTERNAL_ERROR'],
    },
    (req) => connectInfo(s, req, req.params.deploymentId),
  );

  dataRoute(
    app,
    {
      method: 'GET',
      url: '/api/v1/plans',
      operationId: 'listPlans',
      summary: 'List plans with prices',
      tags: ['Assistants'],
      auth: 'apiKey',
      description:
        "Each mode's price (from the payment provider: Stripe's price, or the operator's PLAN_PRICE_*_USD with local payments) and its monthly model allowance.",
      data: Type.Array(PlanView),
      answer: 'The three plans.',
      errors: ['UNAUTHORIZED', 'API_DISABLED', 'INTERNAL_ERROR'],
    },
    () => listPlans(s),
  );
}
