// Endpoints 1-9: parse (schema), call one service verb, shape the envelope.
import type { ErrorCode } from '../../platform/errors/codes.js';
import type { FastifyInstance, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { Static } from 'typebox';
import {
  ASSISTANT_READ_ERRORS,
  assistantRoute,
  type AssistantOperation,
  type OnOneAssistant,
  operationSchema,
} from '../../platform/http/define-route.js';
import { DataEnvelope } from '../../platform/http/schemas/common.js';
import { DeploymentRecordSchema, StatusViewSchema } from '../schemas/deployment.js';
import {
  ActivateBody,
  DeleteResult,
  PurchaseBody,
  PurchaseResult,
  RedeployBody,
  ModelBody,
  UpdateBody,
} from '../schemas/assistants.js';
import { Type } from 'typebox';
import { type Deployment, toRecord, toStatusView } from '../../domain/deployment.js';
import type { Services } from '../../services.js';
import { purchaseIdempotently } from '../purchase-idempotently.js';
import { activateDeployment } from '../activate-deployment.js';
import { getDeployment } from '../get-deployment.js';
import { listDeployments, listDeploymentsPage } from '../list-deployments.js';
import { ListQuery, ListResult } from '../../platform/http/schemas/list.js';
import { updateDeployment } from '../update-deployment.js';
import { changeModel } from '../change-model.js';
import { redeployDeployment } from '../redeploy-deployment.js';
import { stopDeployment } from '../stop-deployment.js';
import { deleteDeployment } from '../delete-deployment.js';

const tags = ['Assistants'];
const Record = Type.Ref('DeploymentRecord');
// INVALID_REQUEST: no body is needed, but one that is sent must be JSON.
const STOP_OR_DELETE_ERRORS = [
  'UNAUTHORIZED',
  'NOT_FOUND',
  'INVALID_REQUEST',
  'WORKER_DELETE_FAILED',
  'API_DISABLED',
  'INTERNAL_ERROR',
] satisfies ErrorCode[];
// Activate and update: a body that fails its schema (INVALID_REQUEST) or the mode's rules
// (INVALID_INPUT), or a deployment whose state does not take new settings (INVALID_STATE).
const SETTINGS_ERRORS = [
  'UNAUTHORIZED',
  'NOT_FOUND',
  'INVALID_REQUEST',
  'INVALID_INPUT',
  'INVALID_STATE',
  'BOT_TOKEN_IN_USE',
  'API_DISABLED',
  'INTERNAL_ERROR',
] satisfies ErrorCode[];

export function assistantRoutes(app: FastifyInstance, s: Services) {
  app.addSchema(DeploymentRecordSchema);

  /** An operation on one assistant whose verb answers the deployment: its record is the `data`. */
  const recordRoute = <G extends RouteGenericInterface>(
    op: Omit<AssistantOperation, 'data'>,
    verb: (req: FastifyRequest<OnOneAssistant<G>>) => Promise<Deployment>,
  ) => assistantRoute<G>(app, tags, { ...op, data: Record }, async (req) => toRecord(await verb(req)));

  app.post<{ Body: Static<typeof PurchaseBody>; Headers: { 'idempotency-key'?: string } }>(
    '/api/v1/assistants/purchase',
    operationSchema({
      operationId: 'purchaseAssistantSlot',
      summary: 'Purchase assistant slot',
      tags,
      auth: 'apiKey',
      description:
        'Creates a prebuy slot and a checkout link. Activation is a separate call and follows checkout. With an Idempotency-Key, a retry with the same body returns the same slot (kept 24 h).',
      body: PurchaseBody,
      headers: {
        'idempotency-key': Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 255,
            description: 'Makes retries safe: the same key and body return the same slot.',
          }),
        ),
      },
      success: {
        status: 201,
        schema: DataEnvelope(PurchaseResult),
        description: 'Slot created; complete checkout at checkoutUrl.',
      },
      errors: [
        'UNAUTHORIZED',
        'INVALID_REQUEST',
        'PAYMENT_NOT_CONFIGURED',
        'API_DISABLED',
        'INTERNAL_ERROR',
        'QUOTA_EXCEEDED',
      ],
    }),
    async (req, reply) => {
      const { result, replayed } = await purchaseIdempotently(s, req, req.body, req.headers['idempotency-key']);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.status(201).send({ data: result });
    },
  );

  recordRoute<{ Body: Static<typeof ActivateBody> }>(
    {
      method: 'POST',
      url: '/api/v1/assistants/:deploymentId/activate',
      operationId: 'activateAssistant',
      summary: 'Activate assistant',
      body: ActivateBody,
      answer: 'Deployment record with status deploying.',
      errors: SETTINGS_ERRORS,
    },
    (req) => activateDeployment(s, req, req.params.deploymentId, req.body),
  );

  assistantRoute(
    app,
    tags,
    {
      method: 'GET',
      url: '/api/v1/assistants/:deploymentId/status',
      operationId: 'getAssistantStatus',
      summary: 'Get assistant status',
      data: StatusViewSchema,
      answer: 'Status view; poll until active or failed.',
      errors: ASSISTANT_READ_ERRORS,
    },
    async (req) => toStatusView(await getDeployment(s, req, req.params.deploymentId)),
  );

  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/api/v1/assistants',
    operationSchema({
      operationId: 'listAssistants',
      summary: 'List assistants',
      tags,
      auth: 'apiKey',
      description:
        'Newest first. Pending-payment slots older than one hour are excluded. Without limit or cursor the whole list is returned as data; with either, one page and nextCursor (null after the last page).',
      query: ListQuery,
      success: { status: 200, schema: ListResult, description: "The caller's deployments." },
      errors: ['UNAUTHORIZED', 'INVALID_REQUEST', 'API_DISABLED', 'INTERNAL_ERROR'],
    }),
    async (req) => {
      const { limit, cursor } = req.query;
      if (limit === undefined && cursor === undefined) return { data: (await listDeployments(s, req)).map(toRecord) };
      const page = await listDeploymentsPage(s, req, { limit, cursor });
      return { data: page.items.map(toRecord), nextCursor: page.nextCursor };
    },
  );

  recordRoute(
    {
      method: 'GET',
      url: '/api/v1/assistants/:deploymentId',
      operationId: 'getAssistant',
      summary: 'Get assistant',
      answer: 'Deployment record.',
      errors: ASSISTANT_READ_ERRORS,
    },
    (req) => getDeployment(s, req, req.params.deploymentId),
  );

  recordRoute<{ Body: Static<typeof UpdateBody> }>(
    {
      method: 'PATCH',
      url: '/api/v1/assistants/:deploymentId',
      operationId: 'updateAssistant',
      summary: 'Update assistant config',
      body: UpdateBody,
      answer: 'Updated deployment record.',
      errors: SETTINGS_ERRORS,
    },
    (req) => updateDeployment(s, req, req.params.deploymentId, req.body),
  );

  recordRoute<{ Body: Static<typeof ModelBody> }>(
    {
      method: 'PUT',
      url: '/api/v1/assistants/:deploymentId/model',
      operationId: 'changeAssistantModel',
      summary: 'Change the model',
      description:
        "Changes the model. On an active assistant it is applied live: the status stays active and the next model call uses the new model. In other statuses it is the model part of PATCH, with PATCH's state rule (purchased, stopped or failed; otherwise 409 INVALID_STATE). The model catalog and the mode's rules apply as for PATCH.",
      body: ModelBody,
      answer: 'The deployment record with its new model.',
      errors: SETTINGS_ERRORS.filter((c) => c !== 'BOT_TOKEN_IN_USE'),
    },
    (req) => changeModel(s, req, req.params.deploymentId, req.body),
  );

  recordRoute<{ Body: Static<typeof RedeployBody> }>(
    {
      method: 'POST',
      url: '/api/v1/assistants/:deploymentId/redeploy',
      operationId: 'redeployAssistant',
      summary: 'Redeploy assistant',
      body: RedeployBody,
      answer: 'Deployment record with status deploying.',
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_REQUEST', 'INVALID_STATE', 'API_DISABLED', 'INTERNAL_ERROR'],
    },
    (req) => redeployDeployment(s, req, req.params.deploymentId, req.body),
  );

  recordRoute(
    {
      method: 'POST',
      url: '/api/v1/assistants/:deploymentId/stop',
      operationId: 'stopAssistant',
      summary: 'Stop assistant',
      answer: 'Deployment record with status stopped.',
      errors: STOP_OR_DELETE_ERRORS,
    },
    (req) => stopDeployment(s, req, req.params.deploymentId),
  );

  assistantRoute(
    app,
    tags,
    {
      method: 'DELETE',
      url: '/api/v1/assistants/:deploymentId',
      operationId: 'deleteAssistant',
      summary: 'Delete assistant',
      data: DeleteResult,
      answer: 'Deleted.',
      errors: STOP_OR_DELETE_ERRORS,
    },
    (req) => deleteDeployment(s, req, req.params.deploymentId),
  );
}
