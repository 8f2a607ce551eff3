// What every channel offers the runtime (start, stop, health) and what the core, or later the
// scheduler, may use to speak first (Outbound). A channel reaches the core only through
// Conversation.respond().

export type ChannelState = 'connecting' | 'connected' | 'failed' | 'stopped';

export interface ChannelHealth {
  state: ChannelState;
  /** Why the channel is not connected, in words an owner can act on (becomes statusMessage). */
  error: string | undefined;
}

export interface Channel {
  start(): void;
  /** Ends at once: open polls are aborted, answers in flight finish or are dropped. */
  stop(): Promise<void>;
  health(): ChannelHealth;
}

export interface SendOptions {
  /** Answer this message (Telegram: reply_parameters). */
  replyTo?: number;
  /** The text is Markdown from the model: render it for the channel. */
  markdown?: boolean;
}

/** Sending without being asked: reminders, scheduled tasks. */
export interface Outbound {
  /** Sends text to a chat, split as the channel needs; resolves with the ids of what was sent. */
  sendText(chatId: string, text: string, opts?: SendOptions): Promise<number[]>;
  /** Shows a passing preview of an answer being written, where the channel can. */
  draft?(chatId: string, text: string): Promise<void>;
}
