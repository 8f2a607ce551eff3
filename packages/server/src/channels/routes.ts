// GET /api/v1/assistants/{id}/channels, PUT and DELETE …/channels/{type} (DESIGN §9.1), beside
// the spec's paths: parse (schema), call one verb, shape the envelope.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { ErrorCode } from '../platform/errors/codes.js';
import { assistantRoute, dataRoute } from '../platform/http/define-route.js';
import type { Services } from '../services.js';
import { listChannels, putChannel, removeChannel } from './channel-verbs.js';
import {
  ChannelParams,
  ChannelView,
  DiscordCredentials,
  type DiscordCredentialsInput,
  RemovedChannel,
  WhatsAppCredentials,
  type WhatsAppCredentialsInput,
} from './schemas.js';

const tags = ['Assistants'];
const READ_ERRORS = ['UNAUTHORIZED', 'NOT_FOUND', 'API_DISABLED', 'INTERNAL_ERROR'] satisfies ErrorCode[];

export function channelRoutes(
  app: FastifyInstance,
  services: Services,
  where: { publicBaseUrl: string; whatsappApiRoot?: string; discordApiRoot?: string },
) {
  const s = { ...services, ...where };
  app.addSchema(ChannelView);
  app.addSchema(WhatsAppCredentials);
  app.addSchema(DiscordCredentials);
  const base = '/api/v1/assistants/:deploymentId/channels';

  assistantRoute(
    app,
    tags,
    {
      method: 'GET',
      url: base,
      operationId: 'listAssistantChannels',
      summary: 'List assistant channels',
      description:
        "The assistant's channels and how each is doing: its Telegram bot (read-only here, once activated) and the channels attached beside it.",
      data: Type.Array(Type.Ref('AssistantChannel')),
      answer: 'The channels, Telegram first.',
      errors: READ_ERRORS,
    },
    (req) => listChannels(s, req, req.params.deploymentId),
  );

  dataRoute<{ Params: Static<typeof ChannelParams>; Body: WhatsAppCredentialsInput | DiscordCredentialsInput }>(
    app,
    {
      method: 'PUT',
      url: `${base}/:type`,
      operationId: 'putAssistantChannel',
      summary: 'Attach or replace a channel',
      description:
        "Stores the channel's credentials (write-only: sealed at rest, never answered) in any status. whatsapp answers the webhook URL and verify token to paste into the Meta app; discord checks the bot token with Discord and answers the bot's username and the invite URL. One WhatsApp number or Discord application runs one assistant: 409 CHANNEL_IN_USE.",
      tags,
      auth: 'apiKey',
      params: ChannelParams,
      body: Type.Union([Type.Ref('WhatsAppChannelCredentials'), Type.Ref('DiscordChannelCredentials')]),
      data: Type.Ref('AssistantChannel'),
      answer: 'The channel as stored.',
      errors: [...READ_ERRORS, 'INVALID_REQUEST', 'CHANNEL_IN_USE'],
    },
    (req) => putChannel(s, req, req.params.deploymentId, req.params.type, req.body),
  );

  dataRoute<{ Params: Static<typeof ChannelParams> }>(
    app,
    {
      method: 'DELETE',
      url: `${base}/:type`,
      operationId: 'deleteAssistantChannel',
      summary: 'Remove a channel',
      description:
        'Removes the channel and its credentials; its webhook answers 404 from then on. A channel the assistant does not have answers 404.',
      tags,
      auth: 'apiKey',
      params: ChannelParams,
      data: RemovedChannel,
      answer: 'Removed.',
      errors: [...READ_ERRORS, 'INVALID_REQUEST'],
    },
    (req) => removeChannel(s, req, req.params.deploymentId, req.params.type),
  );
}
