// What a worker is given, built from the deployment alone: pure and shared by every backend
// (local agent host, Kubernetes). Each part is its own function so a change to one (say, where
// managed mode sends model traffic) touches one small function.
import type { AssistantSettings } from '@berth/contracts/settings';
import type { McpServerConfig } from '@berth/contracts/mcp';
import type { ChannelSpec } from '@berth/contracts/worker';
import type { Deployment } from '../domain/deployment.js';
import { capabilitiesOf, type CatalogProvider, type ModelCatalog } from '../catalog/model-catalog.js';
import type { SecretBox } from '../platform/crypto/secret-box.js';
import type { GatewayCredentials } from '../billing/gateway-credential.js';
import type { WorkerSpec } from './port.js';

export interface SpecDeps {
  catalog: ModelCatalog;
  secrets: SecretBox;
  managedProviderApiKey: string | undefined;
  billing: { credentials: Pick<GatewayCredentials, 'issue'>; gatewayUrl(): string };
  /** Present when the operator configured web search. */
  search?: object;
}

/** The deployment cannot run as it is; the message says what a person can do about it. */
export class WorkerSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerSpecError';
  }
}

/**
 * Where the worker sends model traffic and with which key: in every mode, the metering gateway with
 * a credential for this deployment alone (one meter, decision 0012). The operator's router key and
 * a byok owner's provider key both stay sealed in the control plane; the gateway adds the right one.
 */
export function modelTargetFor(deps: SpecDeps, d: Deployment): WorkerSpec['model'] {
  const provider = deps.catalog.provider(d.modelProvider);
  if (!provider) {
    throw new WorkerSpecError(
      `Model provider "${d.modelProvider}" is no longer in the server's model catalog; update the deployment.`,
    );
  }
  if (d.apiMode !== 'byok' && !deps.managedProviderApiKey) {
    throw new WorkerSpecError(
      'The operator has not configured MANAGED_PROVIDER_API_KEY; managed deployments cannot reach the model router.',
    );
  }
  if (d.apiMode === 'byok' && !d.modelApiKeyEnc)
    throw new WorkerSpecError('The deployment has no model API key; update it and redeploy.');
  return {
    provider: provider.id,
    baseUrl: deps.billing.gatewayUrl(),
    modelId: d.modelId,
    apiKey: deps.billing.credentials.issue(d.id, d.generation),
    ...mediaFor(provider, d.modelId),
  };
}

/**
 * The media the worker may offer: the model's capabilities and its provider's transcription model;
 * "speech" and "images" when the provider speaks and draws (DESIGN §9.5, decision 0033).
 */
function mediaFor(
  provider: CatalogProvider,
  modelId: string,
): Pick<WorkerSpec['model'], 'capabilities' | 'transcriptionModel'> {
  const capabilities = [
    ...capabilitiesOf(provider, modelId),
    ...(provider.speech ? ['speech'] : []),
    ...(provider.images ? ['images'] : []),
  ];
  return {
    ...(capabilities.length ? { capabilities } : {}),
    ...(provider.transcription ? { transcriptionModel: provider.transcription.model } : {}),
  };
}

/** The channels the worker connects with (the spec's Telegram bot; more join as entries) and its gateway token. */
export function channelFor(
  deps: Pick<SpecDeps, 'secrets'>,
  d: Deployment,
): Pick<WorkerSpec, 'channels' | 'gatewayToken'> {
  if (!d.botTokenEnc || !d.gatewayTokenEnc)
    throw new WorkerSpecError('The deployment has no bot token; update it and redeploy.');
  return {
    channels: [{ type: 'telegram', botToken: deps.secrets.open(d.botTokenEnc) }],
    gatewayToken: deps.secrets.open(d.gatewayTokenEnc),
  };
}

/**
 * `settings`: the deployment's newest version (settings/current-settings.ts), sent whole;
 * `mcpServers`: its MCP servers with their headers opened (mcp/worker-list.ts).
 */
export function buildWorkerSpec(
  deps: SpecDeps,
  d: Deployment,
  settings: AssistantSettings,
  mcpServers: McpServerConfig[] = [],
  /** The channels attached beside the spec's bot (channels/worker-channels.ts). */
  attached: ChannelSpec[] = [],
): WorkerSpec {
  const own = channelFor(deps, d);
  return {
    workerName: d.workerName,
    deploymentId: d.id,
    framework: d.framework,
    ...own,
    channels: [...own.channels, ...attached],
    model: modelTargetFor(deps, d),
    ...searchFor(deps, d),
    settings,
    ...(mcpServers.length ? { mcpServers } : {}),
  };
}

/**
 * Web search goes through the control plane in every mode (the operator holds the provider's key
 * and meters each query), with the same per-deployment credential as the model gateway.
 */
export function searchFor(deps: SpecDeps, d: Deployment): Pick<WorkerSpec, 'search'> {
  if (!deps.search) return {};
  return {
    search: {
      url: `${deps.billing.gatewayUrl()}/search`,
      credential: deps.billing.credentials.issue(d.id, d.generation),
    },
  };
}
