// The deployment as the services see it. Secrets stay sealed here; only the worker spec opens them.
export const API_MODES = ['byok', 'managed', 'unlimited'] as const;
export type ApiMode = (typeof API_MODES)[number];

export const STATUSES = ['purchased', 'deploying', 'active', 'failed', 'stopped'] as const;
export type DeploymentStatus = (typeof STATUSES)[number];

/** What the user last asked for: a worker running, or none. A deleted deployment is a tombstone. */
export type Desired = 'running' | 'stopped';

/** What the workers backend last reported for the current generation's worker. */
export const OBSERVED = ['absent', 'starting', 'ready', 'failed'] as const;
export type Observed = (typeof OBSERVED)[number];

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
  desired: Desired;
  observed: Observed;
  paymentStatus: PaymentStatus;
  paymentSubscriptionId: string;
  currentPeriodEnd: string;
  canceledAt: string | null;
  isPrebuy: boolean;
  userCallbackUrl: string | null;
  botTokenEnc: string | null;
  /** Keyed hash of the bot token: one token runs one assistant (unique in the store). */
  botTokenHash: string | null;
  modelApiKeyEnc: string | null;
  gatewayTokenEnc: string | null;
  checkoutId: string;
  generation: number;
  /** Unix time of the newest subscription event applied (payment events arrive out of order). */
  paymentEventAt: number | null;
  /** The operator's suspension: while set, the deployment stays stopped (domain/lifecycle.ts). */
  suspendedReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The fields of the spec's deployment record: an allowlist, so secrets can never slip in. */
export const RECORD_FIELDS = [
  'id',
  'userId',
  'organizationId',
  'name',
  'modelProvider',
  'modelId',
  'channelType',
  'apiMode',
  'workerName',
  'workerUrl',
  'status',
  'statusMessage',
  'paymentStatus',
  'paymentSubscriptionId',
  'currentPeriodEnd',
  'canceledAt',
  'isPrebuy',
  'userCallbackUrl',
  'createdAt',
  'updatedAt',
] as const satisfies ReadonlyArray<keyof Deployment>;

export type DeploymentRecord = Pick<Deployment, (typeof RECORD_FIELDS)[number]>;

/**
 * The workerUrl people see. A local worker's address is the agent host's Unix socket, whose path
 * (the host's private temporary directory) is the control plane's business only: it is shown as
 * a name. Kubernetes workers' in-cluster URLs are shown as they are.
 */
export function shownWorkerUrl(url: string | null): string | null {
  if (!url?.startsWith('http+unix:')) return url;
  const name = /\/agents\/([^/?#]+)/.exec(url)?.[1];
  return name ? `berth-local-host:/agents/${name}` : 'berth-local-host:/';
}

/**
 * The record of `d`: RECORD_FIELDS, written out. An object literal has one shape, made once; built
 * from the field list (Object.fromEntries) it cost every GET about 3 µs of dictionary stores
 * (docs/decisions/0033-get-throughput.md). The type admits no field outside the list, and
 * record-fields.test checks the keys against it.
 */
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
    workerUrl: shownWorkerUrl(d.workerUrl),
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
  return { id: d.id, status: d.status, statusMessage: d.statusMessage, workerUrl: shownWorkerUrl(d.workerUrl) };
}

/** Kubernetes-safe (lowercase, ≤63 chars) and stable for the life of the deployment. */
export function workerNameFor(deploymentId: string): string {
  return `asst-${deploymentId.toLowerCase()}`;
}
