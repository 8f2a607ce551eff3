// A Telegram message as the core's InboundMessage: one session per chat (a new one after /reset),
// the sender as senderOf names them, with a first name (the core shows it to the model in groups),
// the mention stripped.
import type { Context } from 'grammy';
import { type InboundMessage, telegramSession } from '../../../core/inbound.js';
import { addressing } from './mention-gate.js';
import { senderOf } from './sender.js';
import { topicOf } from '../bursts.js';

export function toInbound(ctx: Context, epoch: number): InboundMessage {
  const chat = ctx.chat!;
  // The sender as access saw it: the chat a message was posted as, not Telegram's stand-in bot.
  const from = senderOf(ctx);
  const topic = topicOf(ctx.message);
  // In a topic every message "replies" to the topic's first (service) message: that is no reply.
  const reply = ctx.message?.reply_to_message?.forum_topic_created ? undefined : ctx.message?.reply_to_message;
  const { addressed, text } = addressing(ctx);
  return {
    chat: {
      id: String(chat.id),
      type: chat.type === 'private' ? 'private' : 'group',
      ...(topic === undefined ? {} : { thread: String(topic) }),
    },
    session: telegramSession(chat.id, epoch, topic),
    sender: from && {
      id: String(from.id),
      firstName: from.firstName,
      ...(from.languageCode ? { languageCode: from.languageCode } : {}),
    },
    text,
    mentioned: addressed,
    ...(reply ? { replyTo: { messageId: reply.message_id, fromBot: reply.from?.id === ctx.me.id } } : {}),
  };
}
