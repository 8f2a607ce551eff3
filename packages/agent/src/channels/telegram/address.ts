// Where a message Telegram did not ask for goes (a reminder, a scheduled task's answer): a chat,
// or one forum topic of it (DESIGN §9.4). Written "<chat>" or "<chat>:<topic>": what a schedule's
// chat key holds after "telegram:" (core/inbound.ts channelChat, the topic as the chat's thread),
// and the chat id the channel's Outbound and Scheduled ports take, so the scheduler never reads it.

export interface TelegramAddress {
  chat: number;
  /** A forum topic's message_thread_id; absent: the chat as a whole (a forum's General topic). */
  topic?: number;
}

const ADDRESS = /^(-?\d+)(?::(\d+))?$/;

export function parseAddress(address: string): TelegramAddress | undefined {
  const m = ADDRESS.exec(address);
  if (!m) return undefined;
  const chat = Number(m[1]);
  const topic = m[2] === undefined ? undefined : Number(m[2]);
  if (!Number.isSafeInteger(chat) || (topic !== undefined && !(Number.isSafeInteger(topic) && topic > 0)))
    return undefined;
  return topic === undefined ? { chat } : { chat, topic };
}

export const formatAddress = (a: TelegramAddress) => `${a.chat}${a.topic === undefined ? '' : `:${a.topic}`}`;
