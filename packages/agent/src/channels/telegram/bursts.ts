// What a burst of one user's words is made of (turn-gate.ts gathers them; decision 0033,
// bursts-topics-edits): each message's id and its words (mention stripped), changed by an edit until
// its turn starts; and where it was written: the chat and, in a forum supergroup, the topic, which
// is a conversation of its own (DESIGN §9.4).
import type { Context } from 'grammy';
import type { Message } from 'grammy/types';
import { DEFAULT_BURST_MS, type AssistantSettings } from '@berth/contracts/settings';
import type { InboundMessage } from '../../core/inbound.js';
import { addressing } from './middleware/mention-gate.js';

export interface BurstItem {
  messageId: number;
  /** The words the model reads: the message's, or its latest edit's. */
  text: string;
  ctx: Context;
}

/** The owner's quiet time, else the host's (TELEGRAM_BURST_MS), else the house default. */
export const burstMs = (s: AssistantSettings, hostDefault = DEFAULT_BURST_MS) => s.burstMs ?? hostDefault;

/**
 * The forum topic a message was written in. Only a forum's topic messages count: an ordinary
 * supergroup's replies carry a message_thread_id too, and there it is no conversation of its own.
 * The forum's General topic carries none (its messages go to the chat as a whole).
 */
export function topicOf(msg: Message | undefined): number | undefined {
  if (!msg?.is_topic_message || !msg.message_thread_id) return undefined;
  return msg.chat.type === 'supergroup' && msg.chat.is_forum ? msg.message_thread_id : undefined;
}

/** One line of turns per sender, chat and topic (the sender as Telegram's `from`, then sender_chat). */
export function turnKey(ctx: Context): string {
  const topic = topicOf(ctx.msg);
  return `${ctx.chat!.id}:${topic ?? ''}:${ctx.from?.id ?? ctx.senderChat?.id ?? 0}`;
}

export const burstItem = (ctx: Context): BurstItem => ({
  messageId: ctx.message!.message_id,
  text: addressing(ctx).text,
  ctx,
});

/** An edit of a message still waiting for its turn: its new words, mention stripped as before. */
export function applyEdit(ctx: Context, waiting: BurstItem[]): boolean {
  const edited = ctx.editedMessage;
  const item = edited && waiting.find((w) => w.messageId === edited.message_id);
  if (!item) return false;
  item.text = addressing(ctx, edited).text;
  return true;
}

/**
 * One turn for the whole burst: its words in the order they were written, one per line; replies,
 * the mention and the group's manners as the last message has them (the answer replies to it).
 */
export function burstInbound(first: InboundMessage, items: BurstItem[]): InboundMessage {
  return { ...first, text: items.map((i) => i.text).join('\n') };
}

/** Messages in message id order (they are numbered as Telegram received them in the chat). */
export const inOrder = (items: BurstItem[]) => [...items].sort((a, b) => a.messageId - b.messageId);
