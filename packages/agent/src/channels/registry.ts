// The channels an assistant can have, by type. A channel is a folder beside telegram/ whose
// index.ts exports createChannel, and one line below; nothing else in the agent names it. Each
// module loads with the first assistant that has that channel (grammY is ~17 MB resident), so a
// host without such assistants never carries it.
import type { ChannelModule } from './channel.js';

export type { ChannelConfig, ChannelContext, ChannelModule } from './channel.js';

const loaders = new Map<string, () => Promise<ChannelModule>>([
  ['telegram', () => import('./telegram/index.js')],
  ['whatsapp', () => import('./whatsapp/index.js')],
  ['discord', () => import('./discord/index.js')],
]);

/**
 * Adds a channel type beside the built-in ones (tests; a plugin). The built-in ones are the lines
 * above: a new channel of Berth's own belongs there.
 */
export function registerChannel(type: string, load: () => Promise<ChannelModule>) {
  loaders.set(type, load);
}

/** The module of a channel type, loaded once; undefined for a type nobody registered. */
export function loadChannel(type: string): Promise<ChannelModule> | undefined {
  return loaders.get(type)?.();
}
