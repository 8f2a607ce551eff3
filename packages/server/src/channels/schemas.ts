// The channels endpoints' shapes (DESIGN §9.1), beside the spec's paths.
import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../platform/http/schemas/common.js';

export type ChannelType = 'telegram' | 'whatsapp' | 'discord';

export const ChannelView = Type.Object(
  {
    type: Type.Union([Type.Literal('telegram'), Type.Literal('whatsapp'), Type.Literal('discord')], {
      description: 'telegram is listed read-only: its bot token is set by activation and PATCH.',
    }),
    status: Type.Union([
      Type.Literal('connecting'),
      Type.Literal('connected'),
      Type.Literal('failed'),
      Type.Literal('disabled'),
    ]),
    statusMessage: Nullable(Type.String({ description: 'Why it is not connected, in words to act on.' })),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description:
        "What the owner may see. whatsapp: phoneNumberId, webhookUrl and verifyToken (paste both into the Meta app's webhook settings). discord: applicationId, botUsername and inviteUrl (opens Discord to add the bot to a server). Secrets are never shown.",
    }),
    updatedAt: Timestamp,
  },
  { additionalProperties: false, $id: 'AssistantChannel' },
);
export type ChannelViewData = Static<typeof ChannelView>;

export const WhatsAppCredentials = Type.Object(
  {
    phoneNumberId: Type.String({
      pattern: '^[0-9]{1,32}$',
      description: "The WhatsApp Business phone number id (digits, from the Meta app's WhatsApp API setup).",
    }),
    accessToken: Type.String({
      minLength: 20,
      maxLength: 1024,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'A system user access token with whatsapp_business_messaging. Write-only.',
    }),
    appSecret: Type.String({
      pattern: '^[0-9a-fA-F]{32}$',
      description: "The Meta app's secret (32 hexadecimal digits): webhooks are checked against it. Write-only.",
    }),
  },
  { additionalProperties: false, $id: 'WhatsAppChannelCredentials' },
);
export type WhatsAppCredentialsInput = Static<typeof WhatsAppCredentials>;

export const DiscordCredentials = Type.Object(
  {
    botToken: Type.String({
      minLength: 50,
      maxLength: 100,
      pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
      description: "The bot's token (the Bot page of the Discord Developer Portal). Write-only.",
    }),
    applicationId: Type.String({
      pattern: '^[0-9]{17,20}$',
      description: "The application's id (a snowflake: the General Information page of the Developer Portal).",
    }),
  },
  { additionalProperties: false, $id: 'DiscordChannelCredentials' },
);
export type DiscordCredentialsInput = Static<typeof DiscordCredentials>;

/** The types an owner attaches here; Telegram's bot comes with activation (the spec's path). */
export const ChannelParams = Type.Object({
  deploymentId: Type.String({ format: 'uuid', description: 'Deployment identifier' }),
  type: Type.Union([Type.Literal('whatsapp'), Type.Literal('discord'), Type.Literal('telegram')], {
    description: 'The channel type; telegram is read-only here (400).',
  }),
});

export const RemovedChannel = Type.Object({ success: Type.Literal(true) }, { additionalProperties: false });
