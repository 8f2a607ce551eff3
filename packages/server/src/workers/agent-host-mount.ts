// What an agent host's admin API (PUT /agents/{name}) takes to run one assistant: the same for the
// local host process and the Kubernetes host pods.
import type { WorkerSpec } from './port.js';

/** Where the bot's webhook points and its secret_token (TELEGRAM_DELIVERY=webhook); absent: long polling. */
export type TelegramWebhookFor = (deploymentId: string) => { url: string; secretToken: string };

export function agentHostMount(spec: WorkerSpec, telegramApiRoot: string | undefined, webhookFor?: TelegramWebhookFor) {
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
    telegram: {
      botToken: spec.botToken,
      ...(telegramApiRoot ? { apiRoot: telegramApiRoot } : {}),
      ...(webhookFor ? { webhook: webhookFor(spec.deploymentId) } : {}),
    },
    ...(spec.search ? { search: spec.search } : {}),
    settings: spec.settings,
  };
}
