// Who a turn is for, as the per-user tools (memory, schedules) see it (DESIGN §7.4).
import type { InboundMessage } from '../core/inbound.js';

/**
 * `user` is namespaced by channel ("tg:42", "api:alice"), so an API caller naming user "42" can
 * never reach Telegram user 42's memory. `chat` is where a reminder asked for here is delivered;
 * the API has none.
 */
export interface EndUser {
  agent: string;
  user: string;
  chat?: string;
}

import { apiUser, telegramChat, telegramUser } from '../core/inbound.js';

export { apiUser, telegramChat, telegramUser };
/** The Telegram chat id of a schedule's `chat`, or undefined for another channel. */
export const telegramChatId = (chat: string) => {
  const id = Number(/^telegram:(-?\d+)$/.exec(chat)?.[1]);
  return Number.isSafeInteger(id) ? id : undefined;
};

/** The end user of an inbound message: its sender, in the namespace of its channel. */
export function endUserOf(agent: string, inbound: InboundMessage): EndUser | undefined {
  const id = inbound.sender?.id;
  if (!id) return undefined;
  if (inbound.chat.type === 'api') return { agent, user: apiUser(id) };
  return { agent, user: telegramUser(id), chat: telegramChat(inbound.chat.id) };
}
