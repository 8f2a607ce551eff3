// The deployment as the services see it. Secrets stay sealed here; only the worker spec opens them.
export const API_MODES = ['byok', 'managed', 'unlimited'] as const;
export type ApiMode = (typeof API_MODES)[number];

export const STATUSES = ['purchased', 'deploying', 'active', 'failed', 'stopped'] as const;
export type DeploymentStatus = (typeof STATUSES)[number];

export const PAYMENT_STATUSES = ['pending', 'paid', 'past_due', 'canceled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const CHANNEL_TELEGRAM = 'telegram';
/** The only framework whose deployments serve the chat and models endpoints. */
export const FRAMEWORK_ASSISTANT_AGENT = 'assistant-agent';

export interface Deployment {
  id: string;
  userId: string;
  organizationId: string | null;
  name: string;
  modelProvider: string;
  modelId: string;
  channelType: string;
  apiMode: ApiMode;
  framework: string;
  workerName: string;
  workerUrl: string | null;
  status: DeploymentStatus;
  statusMessage: string | null;
  paymentStatus: PaymentStatus;
  paymentSubscriptionId: string;
  currentPeriodEnd: string;
  canceledAt: string | null;
  isPrebuy: boolean;
  userCallbackUrl: string | null;
  botTokenEnc: string | null;
  modelApiKeyEnc: string | null;
  gatewayTokenEnc: string | null;
  checkoutId: string;
  generation: number;
  /** Unix time of the newest subscription event applied (payment events arrive out of order). */
  paymentEventAt: number | null;
  createdAt: string;
  updatedAt: string;
}

/** The public record of the spec: everything but the secrets and internal bookkeeping. */
export interface DeploymentRecord {
  id: string;
  userId: string;
  organizationId: string | null;
  name: string;
  modelProvider: string;
  modelId: string;
  channelType: string;
  apiMode: ApiMode;
  workerName: string;
  workerUrl: string | null;
  status: DeploymentStatus;
  statusMessage: string | null;
  paymentStatus: PaymentStatus;
  paymentSubscriptionId: string;
  currentPeriodEnd: string;
  canceledAt: string | null;
  isPrebuy: boolean;
  userCallbackUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

export function toRecord(d: Deployment): DeploymentRecord {
  return {
    id: d.id,
    userId: d.userId,
    organizationId: d.organizationId,
    name: d.name,
    modelProvider: d.modelProvider,
    modelId: d.modelId,
    channelType: d.channelType,
    apiMode: d.apiMode,
    workerName: d.workerName,
    workerUrl: d.workerUrl,
    status: d.status,
    statusMessage: d.statusMessage,
    paymentStatus: d.paymentStatus,
    paymentSubscriptionId: d.paymentSubscriptionId,
    currentPeriodEnd: d.currentPeriodEnd,
    canceledAt: d.canceledAt,
    isPrebuy: d.isPrebuy,
    userCallbackUrl: d.userCallbackUrl,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

export function toStatusView(d: Deployment) {
  return { id: d.id, status: d.status, statusMessage: d.statusMessage, workerUrl: d.workerUrl };
}

/** Kubernetes-safe (lowercase, ≤63 chars) and stable for the life of the deployment. */
export function workerNameFor(deploymentId: string): string {
  return `asst-${deploymentId.toLowerCase()}`;
}
