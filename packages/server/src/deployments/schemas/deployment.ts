import { Type, type Static } from 'typebox';
import { API_MODES, STATUSES, PAYMENT_STATUSES } from '../../domain/deployment.js';
import { Nullable, Timestamp } from '../../platform/http/schemas/common.js';

const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const DeploymentRecordSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    userId: Type.String(),
    organizationId: Nullable(Type.String()),
    name: Type.String({ maxLength: 100 }),
    modelProvider: Type.String(),
    modelId: Type.String(),
    channelType: Type.String({ description: 'Messenger channel: "telegram".' }),
    apiMode: literals(API_MODES),
    workerName: Type.String(),
    workerUrl: Nullable(Type.String({ format: 'uri' })),
    status: literals(STATUSES),
    statusMessage: Nullable(Type.String()),
    paymentStatus: literals(PAYMENT_STATUSES),
    paymentSubscriptionId: Type.String(),
    currentPeriodEnd: Timestamp,
    canceledAt: Nullable(Timestamp),
    isPrebuy: Type.Boolean(),
    userCallbackUrl: Nullable(Type.String({ format: 'uri' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'DeploymentRecord', additionalProperties: false },
);
export type DeploymentRecordBody = Static<typeof DeploymentRecordSchema>;

export const StatusViewSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: literals(STATUSES),
    statusMessage: Nullable(Type.String()),
    workerUrl: Nullable(Type.String({ format: 'uri' })),
  },
  { additionalProperties: false },
);
