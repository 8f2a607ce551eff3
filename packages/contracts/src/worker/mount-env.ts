// The mount (spec.ts) as a dedicated pod carries it: plain values in its environment, credentials
// in its Secret and referenced from the environment by key (never a value in the pod spec). The
// server writes it (workers/kubernetes/manifests/dedicated-worker.ts) and the agent reads it back
// (config/env.ts): both sides use these names, so they cannot drift apart.
import type { McpServerList } from '../mcp/index.js';
import type { AssistantMount, ChannelSpec, ChannelType } from './spec.js';

/** One variable of the pod's environment: a value, or a key of the worker's Secret holding it. */
export type MountEnvVar =
  | { name: string; value: string }
  | { name: string; secretKey: string; value: string; optional?: true };

type Env = Record<string, string | undefined>;

interface ChannelEnv<C extends ChannelSpec> {
  toEnv(channel: C): MountEnvVar[];
  /** The channel's entry when its variables are set; the operator's API root comes from the host's env. */
  fromEnv(env: Env): C | undefined;
}

/** Each channel's variables (a channel's entry here is part of adding it). */
export const CHANNEL_ENV: { [T in ChannelType]: ChannelEnv<Extract<ChannelSpec, { type: T }>> } = {
  telegram: {
    toEnv: (c) => [
      { name: 'TELEGRAM_BOT_TOKEN', secretKey: 'bot-token', value: c.botToken },
      // Webhook mode (TELEGRAM_DELIVERY=webhook): where Telegram posts, and the secret it sends along.
      ...(c.webhook
        ? [
            { name: 'TELEGRAM_WEBHOOK_URL', value: c.webhook.url },
            { name: 'TELEGRAM_WEBHOOK_SECRET', secretKey: 'telegram-webhook-secret', value: c.webhook.secretToken },
          ]
        : []),
    ],
    fromEnv: (env) => {
      const botToken = env.TELEGRAM_BOT_TOKEN?.trim();
      const apiRoot = env.TELEGRAM_API_ROOT?.trim();
      const url = env.TELEGRAM_WEBHOOK_URL?.trim();
      const secretToken = env.TELEGRAM_WEBHOOK_SECRET?.trim();
      if (!botToken) return undefined;
      return {
        type: 'telegram',
        botToken,
        ...(apiRoot ? { apiRoot } : {}),
        ...(url && secretToken ? { webhook: { url, secretToken } } : {}),
      };
    },
  },
  whatsapp: {
    toEnv: (c) => [
      { name: 'WHATSAPP_PHONE_NUMBER_ID', value: c.phoneNumberId },
      { name: 'WHATSAPP_ACCESS_TOKEN', secretKey: 'whatsapp-access-token', value: c.accessToken },
    ],
    fromEnv: (env) => {
      const phoneNumberId = env.WHATSAPP_PHONE_NUMBER_ID?.trim();
      const accessToken = env.WHATSAPP_ACCESS_TOKEN?.trim();
      const apiRoot = env.WHATSAPP_API_ROOT?.trim();
      return phoneNumberId && accessToken
        ? { type: 'whatsapp', phoneNumberId, accessToken, ...(apiRoot ? { apiRoot } : {}) }
        : undefined;
    },
  },
  discord: {
    toEnv: (c) => [
      { name: 'DISCORD_BOT_TOKEN', secretKey: 'discord-bot-token', value: c.botToken },
      { name: 'DISCORD_APPLICATION_ID', value: c.applicationId },
      ...(c.apiRoot ? [{ name: 'DISCORD_API_ROOT', value: c.apiRoot }] : []),
      ...(c.gatewayUrl ? [{ name: 'DISCORD_GATEWAY_URL', value: c.gatewayUrl }] : []),
    ],
    fromEnv: (env) => {
      const botToken = env.DISCORD_BOT_TOKEN?.trim();
      const applicationId = env.DISCORD_APPLICATION_ID?.trim();
      const apiRoot = env.DISCORD_API_ROOT?.trim();
      const gatewayUrl = env.DISCORD_GATEWAY_URL?.trim();
      return botToken && applicationId
        ? {
            type: 'discord',
            botToken,
            applicationId,
            ...(apiRoot ? { apiRoot } : {}),
            ...(gatewayUrl ? { gatewayUrl } : {}),
          }
        : undefined;
    },
  },
};

export const MOUNT_ENV = {
  modelProvider: 'MODEL_PROVIDER',
  modelBaseUrl: 'MODEL_BASE_URL',
  modelId: 'MODEL_ID',
  modelApiKey: 'MODEL_API_KEY',
  modelCapabilities: 'MODEL_CAPABILITIES',
  transcriptionModel: 'MODEL_TRANSCRIPTION_MODEL',
  gatewayToken: 'GATEWAY_TOKEN',
  settings: 'AGENT_SETTINGS',
  searchUrl: 'SEARCH_GATEWAY_URL',
  searchCredential: 'SEARCH_GATEWAY_CREDENTIAL',
  mcpServers: 'AGENT_MCP_SERVERS',
} as const;

/**
 * The owner's MCP servers (headers included, so a Secret key) as JSON. Optional: a pod started
 * before its Secret held the key still starts, with none. Last in the list, so a running pod's
 * Deployment gains it at its end when its first server is added (workers/kubernetes/dedicated.ts)
 * and a later create of the same spec lists the same environment.
 */
export function mcpServersEnv(list: McpServerList): Extract<MountEnvVar, { secretKey: string }> {
  return { name: MOUNT_ENV.mcpServers, secretKey: 'mcp-servers', value: JSON.stringify(list), optional: true };
}

function channelEnv<C extends ChannelSpec>(channel: C): MountEnvVar[] {
  // The table is keyed by type, so the entry found is this channel's.
  return (CHANNEL_ENV[channel.type] as ChannelEnv<C>).toEnv(channel);
}

/** The mount's environment, in the order the pod spec lists it. */
export function mountToEnv(mount: AssistantMount): MountEnvVar[] {
  const { model, search } = mount;
  return [
    { name: MOUNT_ENV.modelProvider, value: model.provider },
    { name: MOUNT_ENV.modelBaseUrl, value: model.baseUrl },
    { name: MOUNT_ENV.modelId, value: model.modelId },
    ...(model.capabilities?.length ? [{ name: MOUNT_ENV.modelCapabilities, value: model.capabilities.join(',') }] : []),
    ...(model.transcriptionModel ? [{ name: MOUNT_ENV.transcriptionModel, value: model.transcriptionModel }] : []),
    { name: MOUNT_ENV.gatewayToken, secretKey: 'gateway-token', value: mount.gatewayToken },
    ...mount.channels.flatMap(channelEnv),
    // The whole settings document; a live change rewrites this key without a restart.
    { name: MOUNT_ENV.settings, secretKey: 'settings', value: JSON.stringify(mount.settings) },
    ...(model.apiKey ? [{ name: MOUNT_ENV.modelApiKey, secretKey: 'model-api-key', value: model.apiKey }] : []),
    ...(search
      ? [
          { name: MOUNT_ENV.searchUrl, value: search.url },
          { name: MOUNT_ENV.searchCredential, secretKey: 'search-credential', value: search.credential },
        ]
      : []),
    // None at all for an assistant without servers: its pod spec and Secret stay as they were.
    ...(mount.mcpServers?.length ? [mcpServersEnv(mount.mcpServers)] : []),
  ];
}

/** The channels whose variables are set, in the table's order. */
export function channelsFromEnv(env: Env): ChannelSpec[] {
  return Object.values(CHANNEL_ENV).flatMap((c) => c.fromEnv(env) ?? []);
}
