// One message a channel hands to the core, whatever the channel: Telegram, the chat API, later a
// scheduled task. The channel decides who spoke and whether the bot was addressed; the core
// decides what to answer.

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
  transcript?: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  /** Model parameters the caller passes through (temperature, max_tokens, ...). */
  params?: Record<string, unknown>;
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
