// Who a turn is for, as the per-user tools (memory, schedules) see it (DESIGN §7.4).
import type { InboundMessage } from '../core/inbound.js';

/**
 * `user` is namespaced by channel ("tg:42", "api:alice", "whatsapp:4915…"), so an API caller naming user "42" can
 * never reach Telegram user 42's memory. `chat` is where a reminder asked for here is delivered;
 * the API has none.
 */
export interface EndUser {
  agent: string;
  user: string;
  chat?: string;
}

import { apiUser, channelChat, channelOf, channelUser, telegramChat, telegramUser } from '../core/inbound.js';

export { apiUser, telegramChat, telegramUser };
/** The end user of an inbound message: its sender, in the namespace of its channel (DESIGN §9.1). */
export function endUserOf(agent: string, inbound: InboundMessage): EndUser | undefined {
  const id = inbound.sender?.id;
  if (!id) return undefined;
  const channel = channelOf(inbound);
  // The chat API has no chat to deliver a reminder to.
  if (inbound.chat.type === 'api') return { agent, user: channelUser(channel, id) };
  return { agent, user: channelUser(channel, id), chat: channelChat(channel, inbound.chat.id, inbound.chat.thread) };
}
