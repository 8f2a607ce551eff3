// A Telegram message as the core's InboundMessage: one session per chat (a new one after /reset),
// the sender's first name (the core shows it to the model in groups), the mention stripped.
import type { Context } from 'grammy';
import { type InboundMessage, telegramSession } from '../../../core/inbound.js';
import { addressing } from './mention-gate.js';

export function toInbound(ctx: Context, epoch: number): InboundMessage {
  const chat = ctx.chat!;
  const from = ctx.from;
  const reply = ctx.message?.reply_to_message;
  const { addressed, text } = addressing(ctx);
  return {
    chat: { id: String(chat.id), type: chat.type === 'private' ? 'private' : 'group' },
    session: telegramSession(chat.id, epoch),
    sender: from && {
      id: String(from.id),
      firstName: from.first_name,
      ...(from.language_code ? { languageCode: from.language_code } : {}),
    },
    text,
    mentioned: addressed,
    ...(reply ? { replyTo: { messageId: reply.message_id, fromBot: reply.from?.id === ctx.me.id } } : {}),
  };
}
