// The Discord channel as the registry (channels/registry.ts) loads it: the runtime's config and
// context in, a Channel out. Loading this module loads @discordjs/ws and @discordjs/rest.
import type { ChannelConfig, ChannelContext } from '../channel.js';
import { DiscordChannel, type DiscordOptions } from './bot.js';

/** An assistant's Discord bot: its token, its application and where this host reaches Discord. */
export interface DiscordConfig extends ChannelConfig, DiscordOptions {
  readonly type: 'discord';
}

const isDiscord = (c: ChannelConfig): c is DiscordConfig =>
  c.type === 'discord' &&
  typeof (c as { botToken?: unknown }).botToken === 'string' &&
  typeof (c as { applicationId?: unknown }).applicationId === 'string';

export function createChannel(config: ChannelConfig, ctx: ChannelContext): DiscordChannel {
  if (!isDiscord(config)) throw new Error(`not a Discord channel's config (type "${config.type}")`);
  return new DiscordChannel(
    {
      botToken: config.botToken,
      applicationId: config.applicationId,
      ...(config.apiRoot ? { apiRoot: config.apiRoot } : {}),
      ...(config.gatewayUrl ? { gatewayUrl: config.gatewayUrl } : {}),
      ...(config.stream === false ? { stream: false } : {}),
      ...(config.retryBaseMs !== undefined ? { retryBaseMs: config.retryBaseMs } : {}),
    },
    ctx,
  );
}
