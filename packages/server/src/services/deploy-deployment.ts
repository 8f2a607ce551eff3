// Brings a deployment from `deploying` to `active` or `failed`. Every write is guarded by the
// generation the deploy started with, so a stop or redeploy that came meanwhile wins.
import type { Deployment } from '../domain/deployment.js';
import type { WorkerSpec } from '../workers/port.js';
import type { Services } from './context.js';

export function buildWorkerSpec(s: Services, d: Deployment): WorkerSpec {
  const provider = s.catalog.provider(d.modelProvider);
  if (!provider) throw new Error(`Model provider "${d.modelProvider}" is no longer in the server's model catalog; update the deployment.`);
  if (!d.botTokenEnc || !d.gatewayTokenEnc) throw new Error('The deployment has no bot token; update it and redeploy.');
  const apiKey = d.apiMode === 'byok' ? (d.modelApiKeyEnc ? s.secrets.open(d.modelApiKeyEnc) : undefined) : s.managedProviderApiKey;
  if (!apiKey) {
    throw new Error(d.apiMode === 'byok'
      ? 'The deployment has no model API key; update it and redeploy.'
      : 'The operator has not configured MANAGED_PROVIDER_API_KEY; managed deployments cannot reach the model router.');
  }
  return {
    workerName: d.workerName,
    deploymentId: d.id,
    framework: d.framework,
    channel: 'telegram',
    botToken: s.secrets.open(d.botTokenEnc),
    model: { provider: provider.id, baseUrl: provider.baseUrl, modelId: d.modelId, apiKey },
    gatewayToken: s.secrets.open(d.gatewayTokenEnc),
  };
}

export async function deployDeployment(s: Services, d: Deployment): Promise<void> {
  const finish = (patch: Partial<Deployment>) =>
    s.deployments.update(d.id, d.generation, { ...patch, updatedAt: s.now().toISOString() });
  try {
    const { workerUrl } = await s.workers.createWorker(buildWorkerSpec(s, d));
    const saved = await finish({ status: 'active', statusMessage: null, workerUrl });
    if (!saved) s.log.info({ deploymentId: d.id }, 'deploy superseded by a newer change');
  } catch (err) {
    const reason = (err as Error).message;
    s.log.warn({ deploymentId: d.id, reason }, 'deploy failed');
    await finish({ status: 'failed', statusMessage: `Deploy failed: ${reason}` });
  }
}
