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

/**
 * A Telegram bot as the pod's environment: the spec's own channel, replaced only by a redeploy
 * (the channels beside it live in one document, channelsEnv below).
 */
function telegramEnv(c: Extract<ChannelSpec, { type: 'telegram' }>): MountEnvVar[] {
  return [
    { name: 'TELEGRAM_BOT_TOKEN', secretKey: 'bot-token', value: c.botToken },
    // Webhook mode (TELEGRAM_DELIVERY=webhook): where Telegram posts, and the secret it sends along.
    ...(c.webhook
      ? [
          { name: 'TELEGRAM_WEBHOOK_URL', value: c.webhook.url },
          { name: 'TELEGRAM_WEBHOOK_SECRET', secretKey: 'telegram-webhook-secret', value: c.webhook.secretToken },
        ]
      : []),
  ];
}

/**
 * Each channel's entry when its variables are set (a channel's reader here is part of adding it):
 * an operator's `berth-agent serve` names its channels this way; the operator's API roots come
 * from the host's env.
 */
const CHANNEL_FROM_ENV: { [T in ChannelType]: (env: Env) => Extract<ChannelSpec, { type: T }> | undefined } = {
  telegram: (env) => {
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
  whatsapp: (env) => {
    const phoneNumberId = env.WHATSAPP_PHONE_NUMBER_ID?.trim();
    const accessToken = env.WHATSAPP_ACCESS_TOKEN?.trim();
    const apiRoot = env.WHATSAPP_API_ROOT?.trim();
    return phoneNumberId && accessToken
      ? { type: 'whatsapp', phoneNumberId, accessToken, ...(apiRoot ? { apiRoot } : {}) }
      : undefined;
  },
  discord: (env) => {
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
  channels: 'AGENT_CHANNELS',
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

/**
 * The channels beside Telegram (WhatsApp, Discord) as one JSON document in a Secret key, as the MCP
 * servers are: the owner changes them live (PUT …/channels), so a dedicated pod's next start must
 * read the newest list from its Secret, which plain values in its Deployment could not give it
 * without a roll. Optional, and only for an assistant with such a channel (same reasons as above).
 * When set, it is the whole list beside Telegram: the per-channel variables below are not read.
 */
export function channelsEnv(list: readonly ChannelSpec[]): Extract<MountEnvVar, { secretKey: string }> {
  return { name: MOUNT_ENV.channels, secretKey: 'channels', value: JSON.stringify(list), optional: true };
}

/** The mount's environment, in the order the pod spec lists it. */
export function mountToEnv(mount: AssistantMount): MountEnvVar[] {
  const { model, search } = mount;
  const beside = mount.channels.filter((c) => c.type !== 'telegram');
  return [
    { name: MOUNT_ENV.modelProvider, value: model.provider },
    { name: MOUNT_ENV.modelBaseUrl, value: model.baseUrl },
    { name: MOUNT_ENV.modelId, value: model.modelId },
    ...(model.capabilities?.length ? [{ name: MOUNT_ENV.modelCapabilities, value: model.capabilities.join(',') }] : []),
    ...(model.transcriptionModel ? [{ name: MOUNT_ENV.transcriptionModel, value: model.transcriptionModel }] : []),
    { name: MOUNT_ENV.gatewayToken, secretKey: 'gateway-token', value: mount.gatewayToken },
    ...mount.channels.flatMap((c) => (c.type === 'telegram' ? telegramEnv(c) : [])),
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
    ...(beside.length ? [channelsEnv(beside)] : []),
  ];
}

/**
 * The channels whose variables are set, in the table's order. With AGENT_CHANNELS set (a dedicated
 * pod), only Telegram's: the list beside it comes from that document (the agent checks it).
 */
export function channelsFromEnv(env: Env): ChannelSpec[] {
  const readers: Array<(e: Env) => ChannelSpec | undefined> = env[MOUNT_ENV.channels]?.trim()
    ? [CHANNEL_FROM_ENV.telegram]
    : Object.values(CHANNEL_FROM_ENV);
  return readers.flatMap((read) => read(env) ?? []);
}
