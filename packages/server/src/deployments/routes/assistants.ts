// Endpoints 1-9: parse (schema), call one service verb, shape the envelope.
import type { ErrorCode } from '../../platform/errors/codes.js';
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { operationSchema } from '../../platform/http/define-route.js';
import { DataEnvelope, DeploymentIdParams } from '../../platform/http/schemas/common.js';
import { DeploymentRecordSchema, StatusViewSchema } from '../schemas/deployment.js';
import {
  ActivateBody,
  DeleteResult,
  PurchaseBody,
  PurchaseResult,
  RedeployBody,
  UpdateBody,
} from '../schemas/assistants.js';
import { Type } from 'typebox';
import { toRecord, toStatusView } from '../../domain/deployment.js';
import type { Services } from '../../services.js';
import { purchaseIdempotently } from '../purchase-idempotently.js';
import { activateDeployment } from '../activate-deployment.js';
import { getDeployment } from '../get-deployment.js';
import { listDeployments, listDeploymentsPage } from '../list-deployments.js';
import { ListQuery, ListResult } from '../../platform/http/schemas/list.js';
import { updateDeployment } from '../update-deployment.js';
import { redeployDeployment } from '../redeploy-deployment.js';
import { stopDeployment } from '../stop-deployment.js';
import { deleteDeployment } from '../delete-deployment.js';

const tags = ['Assistants'];
const Record = DataEnvelope(Type.Ref('DeploymentRecord'));
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
type Params = Static<typeof DeploymentIdParams>;

export function assistantRoutes(app: FastifyInstance, s: Services) {
  app.addSchema(DeploymentRecordSchema);

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

  app.post<{ Params: Params; Body: Static<typeof ActivateBody> }>(
    '/api/v1/assistants/:deploymentId/activate',
    operationSchema({
      operationId: 'activateAssistant',
      summary: 'Activate assistant',
      tags,
      auth: 'apiKey',
      params: DeploymentIdParams,
      body: ActivateBody,
      success: { status: 200, schema: Record, description: 'Deployment record with status deploying.' },
      errors: SETTINGS_ERRORS,
    }),
    async (req) => ({ data: toRecord(await activateDeployment(s, req, req.params.deploymentId, req.body)) }),
  );

  app.get<{ Params: Params }>(
    '/api/v1/assistants/:deploymentId/status',
    operationSchema({
      operationId: 'getAssistantStatus',
      summary: 'Get assistant status',
      tags,
      auth: 'apiKey',
      params: DeploymentIdParams,
      success: {
        status: 200,
        schema: DataEnvelope(StatusViewSchema),
        description: 'Status view; poll until active or failed.',
      },
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'API_DISABLED', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: toStatusView(await getDeployment(s, req, req.params.deploymentId)) }),
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

  app.get<{ Params: Params }>(
    '/api/v1/assistants/:deploymentId',
    operationSchema({
      operationId: 'getAssistant',
      summary: 'Get assistant',
      tags,
      auth: 'apiKey',
      params: DeploymentIdParams,
      success: { status: 200, schema: Record, description: 'Deployment record.' },
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'API_DISABLED', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: toRecord(await getDeployment(s, req, req.params.deploymentId)) }),
  );

  app.patch<{ Params: Params; Body: Static<typeof UpdateBody> }>(
    '/api/v1/assistants/:deploymentId',
    operationSchema({
      operationId: 'updateAssistant',
      summary: 'Update assistant config',
      tags,
      auth: 'apiKey',
      params: DeploymentIdParams,
      body: UpdateBody,
      success: { status: 200, schema: Record, description: 'Updated deployment record.' },
      errors: SETTINGS_ERRORS,
    }),
    async (req) => ({ data: toRecord(await updateDeployment(s, req, req.params.deploymentId, req.body)) }),
  );

  app.post<{ Params: Params; Body: Static<typeof RedeployBody> }>(
    '/api/v1/assistants/:deploymentId/redeploy',
    operationSchema({
      operationId: 'redeployAssistant',
      summary: 'Redeploy assistant',
      tags,
      auth: 'apiKey',
      params: DeploymentIdParams,
      body: RedeployBody,
      success: { status: 200, schema: Record, description: 'Deployment record with status deploying.' },
      errors: ['UNAUTHORIZED', 'NOT_FOUND', 'INVALID_REQUEST', 'INVALID_STATE', 'API_DISABLED', 'INTERNAL_ERROR'],
    }),
    async (req) => ({ data: toRecord(await redeployDeployment(s, req, req.params.deploymentId, req.body)) }),
  );

  app.post<{ Params: Params }>(
    '/api/v1/assistants/:deploymentId/stop',
    operationSchema({
      operationId: 'stopAssistant',
      summary: 'Stop assistant',
      tags,
      auth: 'apiKey',
      params: DeploymentIdParams,
      success: { status: 200, schema: Record, description: 'Deployment record with status stopped.' },
      errors: STOP_OR_DELETE_ERRORS,
    }),
    async (req) => ({ data: toRecord(await stopDeployment(s, req, req.params.deploymentId)) }),
  );

  app.delete<{ Params: Params }>(
    '/api/v1/assistants/:deploymentId',
    operationSchema({
      operationId: 'deleteAssistant',
      summary: 'Delete assistant',
      tags,
      auth: 'apiKey',
      params: DeploymentIdParams,
      success: { status: 200, schema: DataEnvelope(DeleteResult), description: 'Deleted.' },
      errors: STOP_OR_DELETE_ERRORS,
    }),
    async (req) => ({ data: await deleteDeployment(s, req, req.params.deploymentId) }),
  );
}
