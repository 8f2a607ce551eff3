// What an agent host's admin API (PUT /agents/{name}) takes to run one assistant: the same for the
// local host process and the Kubernetes host pods.
import type { WorkerSpec } from './port.js';

export function agentHostMount(spec: WorkerSpec, telegramApiRoot: string | undefined) {
  return {
    gatewayToken: spec.gatewayToken,
    model: {
      provider: spec.model.provider,
      baseUrl: spec.model.baseUrl,
      modelId: spec.model.modelId,
      apiKey: spec.model.apiKey,
      ...(spec.model.capabilities ? { capabilities: spec.model.capabilities } : {}),
      ...(spec.model.transcriptionModel ? { transcriptionModel: spec.model.transcriptionModel } : {}),
    },
    telegram: { botToken: spec.botToken, ...(telegramApiRoot ? { apiRoot: telegramApiRoot } : {}) },
    ...(spec.search ? { search: spec.search } : {}),
    settings: spec.settings,
    ...(spec.mcpServers?.length ? { mcpServers: spec.mcpServers } : {}),
  };
}
