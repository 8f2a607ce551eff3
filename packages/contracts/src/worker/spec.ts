// What the control plane sends a worker to run one assistant (DESIGN §9.1): its model, its
// credentials, its channels, its search route and its settings, as one typed document. The
// control plane builds it once (server workers/spec.ts) and each backend carries it as it must: the
// local agent host and the shared Kubernetes host pods take the mount in PUT /agents/{name}; a
// dedicated pod takes the same fields as its environment and Secret (mount-env.ts), and the agent
// reads them back into this document. The agent validates the same schema either way.
// Adding a channel is: its entry in CHANNEL_SPECS below, its env names in mount-env.ts, its folder
// under the agent's channels/.
import { Type, type Static } from 'typebox';
import { McpServerList } from '../mcp/index.js';
import { AssistantSettings } from '../settings/schema.js';

export const WorkerModel = Type.Object(
  {
    provider: Type.String({ minLength: 1 }),
    baseUrl: Type.String({ pattern: '^https?://' }),
    modelId: Type.String({ minLength: 1 }),
    /** The key the worker calls its model with (the metering gateway's per-deployment credential). */
    apiKey: Type.Optional(Type.String({ minLength: 1 })),
    /** DESIGN §7.3: what the model reads besides text ("vision"), from the control plane's catalog. */
    capabilities: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 })),
    /** The provider's transcription model (`{baseUrl}/audio/transcriptions`); absent: voice notes are not transcribed. */
    transcriptionModel: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type WorkerModel = Static<typeof WorkerModel>;

/** The spec's own channel: a Telegram bot (activation's messengerBotToken). */
export const TelegramChannelSpec = Type.Object(
  {
    type: Type.Literal('telegram'),
    botToken: Type.String({ minLength: 1 }),
    /** A Bot API other than Telegram's (TELEGRAM_API_ROOT: tests, self-hosted Bot API servers). */
    apiRoot: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** Webhook mode (TELEGRAM_DELIVERY=webhook): the control plane's ingress URL for this bot and its secret_token. */
    webhook: Type.Optional(
      Type.Object(
        {
          url: Type.String({ pattern: '^https?://', maxLength: 2000 }),
          secretToken: Type.String({ pattern: '^[A-Za-z0-9_-]{1,256}$' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type TelegramChannelSpec = Static<typeof TelegramChannelSpec>;

/** A WhatsApp Cloud API number (DESIGN §9.1): its updates come through the control plane's webhook ingress. */
export const WhatsAppChannelSpec = Type.Object(
  {
    type: Type.Literal('whatsapp'),
    phoneNumberId: Type.String({ pattern: '^[0-9]{1,32}$' }),
    accessToken: Type.String({ minLength: 1, maxLength: 1024 }),
    /** Meta's Graph API with its version, when not the host's own WHATSAPP_API_ROOT. */
    apiRoot: Type.Optional(Type.String({ pattern: '^https?://' })),
  },
  { additionalProperties: false },
);
export type WhatsAppChannelSpec = Static<typeof WhatsAppChannelSpec>;

/** A Discord bot (PUT …/channels/discord): it connects out to the Gateway, no webhook. */
export const DiscordChannelSpec = Type.Object(
  {
    type: Type.Literal('discord'),
    botToken: Type.String({ minLength: 1 }),
    applicationId: Type.String({ pattern: '^[0-9]{17,20}$' }),
    /** DISCORD_API_ROOT (unversioned): tests and proxies. */
    apiRoot: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** DISCORD_GATEWAY_URL: instead of the url GET /gateway/bot names. */
    gatewayUrl: Type.Optional(Type.String({ pattern: '^wss?://' })),
  },
  { additionalProperties: false },
);
export type DiscordChannelSpec = Static<typeof DiscordChannelSpec>;

/** Every channel a worker can be given, one entry each (DESIGN §9.1: whatsapp and discord join here). */
export const CHANNEL_SPECS = [TelegramChannelSpec, WhatsAppChannelSpec, DiscordChannelSpec] as const;

export const ChannelSpec = Type.Union([...CHANNEL_SPECS]);
export type ChannelSpec = Static<typeof ChannelSpec>;
export type ChannelType = ChannelSpec['type'];

export const SearchTarget = Type.Object(
  { url: Type.String({ pattern: '^https?://' }), credential: Type.String({ minLength: 16, maxLength: 512 }) },
  { additionalProperties: false },
);

/** What one assistant runs with, wherever it runs: the body of an agent host's PUT /agents/{name}. */
export const AssistantMount = Type.Object(
  {
    /** The bearer the control plane's chat calls carry (DESIGN §4). */
    gatewayToken: Type.String({ minLength: 16, maxLength: 512 }),
    model: WorkerModel,
    /** At most one of each type. */
    channels: Type.Array(ChannelSpec, { maxItems: 8 }),
    /** The control plane's search route and this deployment's credential for it (web_search). */
    search: Type.Optional(SearchTarget),
    /** The owner's settings, whole (DESIGN §7.1). */
    settings: AssistantSettings,
    /** The owner's MCP servers, headers in clear (DESIGN §9.2); replaced live by PUT …/mcp-servers. */
    mcpServers: Type.Optional(McpServerList),
  },
  { additionalProperties: false },
);
export type AssistantMount = Static<typeof AssistantMount>;

/** The mount and the names the control plane knows the worker by: what a workers backend is given. */
export const WorkerSpec = Type.Object(
  {
    workerName: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }),
    deploymentId: Type.String({ minLength: 1 }),
    framework: Type.String({ minLength: 1 }),
    ...AssistantMount.properties,
  },
  { additionalProperties: false },
);
export type WorkerSpec = Static<typeof WorkerSpec>;

/** The mount of a spec (what crosses to the agent), without the names the backend keeps. */
export function mountOf(spec: WorkerSpec): AssistantMount {
  const { workerName: _n, deploymentId: _d, framework: _f, ...mount } = spec;
  return mount;
}

/** The spec's channel of `type`, typed as that channel's entry. */
export function channelSpec<T extends ChannelType>(
  spec: Pick<AssistantMount, 'channels'>,
  type: T,
): Extract<ChannelSpec, { type: T }> | undefined {
  return spec.channels.find((c): c is Extract<ChannelSpec, { type: T }> => c.type === type);
}
