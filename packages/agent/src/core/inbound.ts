// One message a channel hands to the core, whatever the channel: Telegram, the chat API, later a
// scheduled task. The channel decides who spoke and whether the bot was addressed; the core
// decides what to answer.
import type { AssistantSettings } from '@berth/contracts/settings';

export interface InboundMessage {
  /** Where the answer goes. `type` "api" is the OpenAI-compatible surface. */
  chat: { id: string; type: 'private' | 'group' | 'api' };
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
 * Session keys: the two channels live in separate namespaces, so whatever an API client sends as
 * X-Assistant-Session-Id (even "telegram:4242:0") can never name a Telegram chat's history.
 */
export const apiSession = (id: string) => `api:${id}`;
export const telegramSession = (chatId: number, epoch: number) => `telegram:${chatId}:${epoch}`;

/** End users are namespaced by channel ("tg:42", "api:alice"): an API caller naming "42" is never Telegram user 42. */
export const telegramUser = (userId: number | string) => `tg:${userId}`;
export const apiUser = (user: string) => `api:${user}`;
/** Where a reminder asked for in a Telegram chat is delivered. */
export const telegramChat = (chatId: number | string) => `telegram:${chatId}`;
