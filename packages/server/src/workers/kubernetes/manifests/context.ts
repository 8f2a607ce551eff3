// What every manifest builder needs from the operator's configuration, and the pod-level
// settings both placements share: non-root, read-only root file system, no service account
// token, bounded resources.
import type {
  V1Container,
  V1PodSecurityContext,
  V1ResourceRequirements,
  V1SecurityContext,
} from '@kubernetes/client-node';
import { metricsTokenEnv } from './metrics-secret.js';
import type { TelegramWebhookFor } from '../../agent-host-mount.js';

export interface ManifestContext {
  namespace: string;
  agentImage: string;
  /** Given to the agents as TELEGRAM_API_ROOT (tests and self-hosted Bot API servers). */
  telegramApiRoot?: string;
  /** Given to the agents as WHATSAPP_API_ROOT, DISCORD_API_ROOT and DISCORD_GATEWAY_URL (the operator's roots). */
  whatsappApiRoot?: string;
  discordApiRoot?: string;
  discordGatewayUrl?: string;
  /** TELEGRAM_DELIVERY=webhook: each bot's webhook (the control plane's ingress) and secret_token. */
  telegramWebhook?: TelegramWebhookFor;
  /** The namespace of the control plane's pods, which alone may call the agents. */
  controlPlaneNamespace: string;
  /** Labels of the control plane's pods (the Helm chart sets them). */
  controlPlaneLabels: Record<string, string>;
  /** The StorageClass of the agents' data claims; unset: the cluster's default class. */
  storageClassName?: string;
  /** The namespace Prometheus scrapes the agents' /metrics from (the chart's PodMonitor); unset: nobody. */
  metricsScraperNamespace?: string;
}

export const AGENT_PORT = 8090;
export const AGENT_UID = 10001;

export const podSecurity: V1PodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: AGENT_UID,
  runAsGroup: AGENT_UID,
  fsGroup: AGENT_UID,
  seccompProfile: { type: 'RuntimeDefault' },
};

export const containerSecurity: V1SecurityContext = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

export const resources = {
  // CPU is limited too: one busy assistant (or host) must not take a node's cores from the others.
  worker: { requests: { cpu: '50m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
  host: { requests: { cpu: '250m', memory: '512Mi' }, limits: { cpu: '2', memory: '2Gi' } },
} satisfies Record<string, V1ResourceRequirements>;

export function commonEnv(ctx: ManifestContext): NonNullable<V1Container['env']> {
  return [
    { name: 'PORT', value: String(AGENT_PORT) },
    { name: 'HOST', value: '0.0.0.0' },
    { name: 'DATA_DIR', value: '/data' },
    ...(ctx.telegramApiRoot ? [{ name: 'TELEGRAM_API_ROOT', value: ctx.telegramApiRoot }] : []),
    // The channels beside Telegram reach their platforms where the control plane does: a number or
    // bot added live (PUT …/channels) finds the root in the pod's environment.
    ...(ctx.whatsappApiRoot ? [{ name: 'WHATSAPP_API_ROOT', value: ctx.whatsappApiRoot }] : []),
    ...(ctx.discordApiRoot ? [{ name: 'DISCORD_API_ROOT', value: ctx.discordApiRoot }] : []),
    ...(ctx.discordGatewayUrl ? [{ name: 'DISCORD_GATEWAY_URL', value: ctx.discordGatewayUrl }] : []),
    // GET /metrics for the chart's PodMonitor, when the operator set METRICS_TOKEN (metrics-secret.ts).
    metricsTokenEnv,
  ];
}
