// What an agent host's admin API (PUT /agents/{name}) takes to run one assistant: the spec's mount
// (@berth/contracts/worker), the same for the local host process and the Kubernetes host pods. The
// operator's Bot API root (TELEGRAM_API_ROOT) is the backend's, so it is added here.
import { type AssistantMount, mountOf } from '@berth/contracts/worker';
import type { WorkerSpec } from './port.js';

/** Where the bot's webhook points and its secret_token (TELEGRAM_DELIVERY=webhook); absent: long polling. */
export type TelegramWebhookFor = (deploymentId: string) => { url: string; secretToken: string };

export function agentHostMount(
  spec: WorkerSpec,
  telegramApiRoot: string | undefined,
  webhookFor?: TelegramWebhookFor,
): AssistantMount {
  const mount = mountOf(spec);
  return {
    ...mount,
    channels: mount.channels.map((c) =>
      c.type === 'telegram'
        ? {
            ...c,
            ...(telegramApiRoot && !c.apiRoot ? { apiRoot: telegramApiRoot } : {}),
            ...(webhookFor ? { webhook: webhookFor(spec.deploymentId) } : {}),
          }
        : c,
    ),
  };
}
