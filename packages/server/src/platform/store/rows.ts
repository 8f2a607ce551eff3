import type { Selectable } from 'kysely';
import type { DeploymentsTable } from './schema.js';
import type {
  Deployment,
  ApiMode,
  Desired,
  DeploymentStatus,
  Observed,
  PaymentStatus,
} from '../../domain/deployment.js';

export function rowToDeployment(r: Selectable<DeploymentsTable>): Deployment {
  return {
    id: r.id,
    userId: r.user_id,
    organizationId: r.organization_id,
    name: r.name,
    modelProvider: r.model_provider,
    modelId: r.model_id,
    channelType: r.channel_type,
    apiMode: r.api_mode as ApiMode,
    framework: r.framework,
    workerName: r.worker_name,
    workerUrl: r.worker_url,
    status: r.status as DeploymentStatus,
    statusMessage: r.status_message,
    desired: r.desired as Desired,
    observed: r.observed as Observed,
    paymentStatus: r.payment_status as PaymentStatus,
    paymentSubscriptionId: r.payment_subscription_id,
    currentPeriodEnd: r.current_period_end,
    canceledAt: r.canceled_at,
    isPrebuy: Number(r.is_prebuy) === 1,
    userCallbackUrl: r.user_callback_url,
    botTokenEnc: r.bot_token_enc,
    botTokenHash: r.bot_token_hash ?? null,
    modelApiKeyEnc: r.model_api_key_enc,
    gatewayTokenEnc: r.gateway_token_enc,
    checkoutId: r.checkout_id,
    generation: Number(r.generation),
    paymentEventAt: r.payment_event_at === null || r.payment_event_at === undefined ? null : Number(r.payment_event_at),
    suspendedReason: r.suspended_reason ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const COLUMN: Record<keyof Deployment, keyof DeploymentsTable> = {
  id: 'id',
  userId: 'user_id',
  organizationId: 'organization_id',
  name: 'name',
  modelProvider: 'model_provider',
  modelId: 'model_id',
  channelType: 'channel_type',
  apiMode: 'api_mode',
  framework: 'framework',
  workerName: 'worker_name',
  workerUrl: 'worker_url',
  status: 'status',
  statusMessage: 'status_message',
  desired: 'desired',
  observed: 'observed',
  paymentStatus: 'payment_status',
  paymentSubscriptionId: 'payment_subscription_id',
  currentPeriodEnd: 'current_period_end',
  canceledAt: 'canceled_at',
  isPrebuy: 'is_prebuy',
  userCallbackUrl: 'user_callback_url',
  botTokenEnc: 'bot_token_enc',
  botTokenHash: 'bot_token_hash',
  modelApiKeyEnc: 'model_api_key_enc',
  gatewayTokenEnc: 'gateway_token_enc',
  checkoutId: 'checkout_id',
  generation: 'generation',
  paymentEventAt: 'payment_event_at',
  suspendedReason: 'suspended_reason',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

export function deploymentToColumns(d: Partial<Deployment>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if (v === undefined) continue;
    const col = COLUMN[k as keyof Deployment];
    out[col] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
  }
  return out;
}
