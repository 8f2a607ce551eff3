// One message a channel hands to the core, whatever the channel: Telegram, the chat API, later a
// scheduled task. The channel decides who spoke and whether the bot was addressed; the core
// decides what to answer.
import type { AssistantSettings } from '@berth/contracts/settings';

export interface InboundMessage {
  /**
   * The channel it came through ("telegram", "whatsapp", …): with the sender's id it names the end
   * user (DESIGN §9.1). Absent: "api" for the chat API's chats, "telegram" for the others (the
   * channels that predate the field).
   */
  channel?: string;
  /**
   * Where the answer goes. `type` "api" is the OpenAI-compatible surface. `thread`: the part of the
   * chat it was written in, where a reminder asked for here goes back to (a Telegram forum topic).
   */
  chat: { id: string; type: 'private' | 'group' | 'api'; thread?: string };
  /** The conversation this turn belongs to (history is loaded and stored); absent: no history. */
  session?: string;
  /** Who wrote it, when the channel knows (Telegram does; the chat API may pass `user`). */
  sender?: { id: string; firstName?: string; languageCode?: string };
  /** The user's turn. */
  text: string;
  attachments?: Attachment[];
  /**
   * Images of this turn as data URLs, for a vision model (DESIGN §7.3): held for the turn only,
   * never stored. The channel has fetched and checked them.
   */
  images?: string[];
  /**
   * What history keeps of this turn instead of `text` ("[photo] caption", "[voice] transcript",
   * "[document name] caption"); by default `text`, with "[photo]" before it when it had images.
   */
  stored?: string;
  /** Whether the bot was addressed (always true in private chats and on the API). */
  mentioned: boolean;
  /** The message this one answers, when it is a reply. */
  replyTo?: { messageId: number; fromBot: boolean };
  /** System messages the caller layers on top of the persona for this turn (the chat API's). */
  system?: string[];
  /**
   * A conversation the caller holds itself (the chat API without a session): sent after the
   * persona as it is, instead of history and `text`.
   */
  transcript?: Array<{ role: 'system' | 'user' | 'assistant'; content: string; images?: string[] }>;
  /** Model parameters the caller passes through (temperature, max_tokens, ...). */
  params?: Record<string, unknown>;
  /**
   * The owner's unsaved settings for this turn only (the dashboard's preview, decision 0021):
   * persona, tools and history budget come from them instead of the running settings.
   */
  settings?: AssistantSettings;
  /** A scheduled task's turn (scheduler/): it may not schedule more. */
  scheduled?: boolean;
}

/** A file that came with the message (photos, voice notes, documents: see DESIGN §7.3). */
export interface Attachment {
  kind: 'photo' | 'voice' | 'audio' | 'document';
  /** The channel's own handle to fetch it (Telegram's file_id). */
  ref: string;
  mimeType?: string;
  fileName?: string;
  bytes?: number;
}

/**
 * Keys are namespaced by channel, so whatever an API client sends as X-Assistant-Session-Id (even
 * "telegram:4242:0") or as `user` can never name a Telegram chat's history or a WhatsApp user's
 * memory. Every channel's keys are `<channel>:<id>` (sessions `<channel>:<chat>:<epoch>`); Telegram's
 * end users alone keep the "tg:" they were stored under before the channel seam (decision 0033).
 */
const USER_PREFIX: Readonly<Record<string, string>> = { telegram: 'tg' };

/** The channel an inbound message came through (see InboundMessage.channel). */
export const channelOf = (inbound: Pick<InboundMessage, 'channel' | 'chat'>) =>
  inbound.channel ?? (inbound.chat.type === 'api' ? 'api' : 'telegram');

/** An end user: `(channel, user id)` as one key, the key memory, schedules and limits are kept under. */
export const channelUser = (channel: string, userId: number | string) => `${USER_PREFIX[channel] ?? channel}:${userId}`;
/**
 * Where a reminder asked for in a channel's chat is delivered: `<channel>:<chat>`, or
 * `<channel>:<chat>:<thread>` when it was asked for in a thread of the chat (a forum topic), so
 * it arrives there. Keys stored before threads had the first form and still mean the chat.
 */
export const channelChat = (channel: string, chatId: number | string, thread?: string) =>
  `${channel}:${chatId}${thread === undefined ? '' : `:${thread}`}`;
/** A channel chat's conversation; a new epoch (/reset) starts a new one. */
export const channelSession = (channel: string, chatId: number | string, epoch: number) =>
  `${channel}:${chatId}:${epoch}`;
/** The id in `key` when it is `channel`'s (channelUser / channelChat, with its thread), else undefined. */
export function idIn(channel: string, kind: 'user' | 'chat', key: string): string | undefined {
  const prefix = `${kind === 'user' ? (USER_PREFIX[channel] ?? channel) : channel}:`;
  return key.startsWith(prefix) && key.length > prefix.length ? key.slice(prefix.length) : undefined;
}

/**
 * A scheduled task's turn (Scheduled.inbound): the text the user asked to be run, from them, in the
 * chat and conversation it is delivered to, addressed to the bot as a private message is.
 */
export const scheduledTurn = (
  channel: string,
  chat: InboundMessage['chat'],
  session: string,
  senderId: string,
  text: string,
): InboundMessage => ({ channel, chat, session, sender: { id: senderId }, text, mentioned: true, scheduled: true });

export const apiSession = (id: string) => `api:${id}`;
/** A forum topic (DESIGN §9.4) is a conversation of its own: `telegram:<chat>:<epoch>:<topic>`. */
export const telegramSession = (chatId: number, epoch: number, topic?: number) =>
  `${channelSession('telegram', chatId, epoch)}${topic === undefined ? '' : `:${topic}`}`;
export const telegramUser = (userId: number | string) => channelUser('telegram', userId);
export const apiUser = (user: string) => channelUser('api', user);
export const telegramChat = (chatId: number | string) => channelChat('telegram', chatId);
