// Who wrote a message, as access, memory, search and reminders key it (decision 0031,
// telegram-senders). A person is `from`. A message sent on behalf of a chat (a member posting as
// their channel, an anonymous administrator) carries a fixed Telegram account in `from`, the same
// for everyone who does it, and the real sender in `sender_chat`: that chat is the sender, keyed
// by its (negative) chat id, so it is gated and remembered like a person and never shares an
// identity with another chat's. Private chats carry no sender_chat: there the sender is `from`.
import type { Context } from 'grammy';

/** Telegram's stand-ins in `from` for messages sent on behalf of a chat. */
export const CHANNEL_BOT_ID = 136817688; // Channel_Bot: a member posting as a channel
export const GROUP_ANONYMOUS_BOT_ID = 1087968824; // GroupAnonymousBot: an anonymous administrator
const STAND_INS = new Set([CHANNEL_BOT_ID, GROUP_ANONYMOUS_BOT_ID]);

export interface Sender {
  /** The key of every per-user row: a Telegram user id (> 0) or the sender chat's id (< 0). */
  id: number;
  /** How the model and history name the sender in groups. */
  firstName: string;
  /** What the owner sees beside a pairing code. */
  name: string | null;
  languageCode?: string;
}

/**
 * The sender of the update's message, or undefined when it has none Berth answers: another bot
 * (bots are never answered, so two bots cannot talk each other into a loop of paid replies), or
 * a stand-in account without the chat it stands for.
 */
export function senderOf(ctx: Context): Sender | undefined {
  const msg = ctx.message;
  const from = msg?.from;
  if (!msg || !from) return undefined;
  const chat = msg.sender_chat;
  if (from.is_bot && !(chat && STAND_INS.has(from.id))) return undefined;
  if (chat) {
    const title = ('title' in chat && chat.title) || chat.username || String(chat.id);
    const what = chat.id === msg.chat.id ? 'anonymous administrators' : chat.type;
    return { id: chat.id, firstName: title, name: `${title} (${what})` };
  }
  return {
    id: from.id,
    firstName: from.first_name,
    name: [from.first_name, from.last_name].filter(Boolean).join(' ') || from.username || null,
    ...(from.language_code ? { languageCode: from.language_code } : {}),
  };
}
