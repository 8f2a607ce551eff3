// A Telegram message as the core's InboundMessage: one session per chat (a new one after /reset).
import type { Context } from 'grammy';
import type { InboundMessage } from '../../../core/inbound.js';
import { telegramSession } from '../../../storage/sessions.js';

export function toInbound(ctx: Context, epoch: number, text: string): InboundMessage {
  const chat = ctx.chat!;
  const from = ctx.from;
  const reply = ctx.message?.reply_to_message;
  return {
    chat: { id: String(chat.id), type: chat.type === 'private' ? 'private' : 'group' },
    session: telegramSession(chat.id, epoch),
    sender: from && {
      id: String(from.id),
      firstName: from.first_name,
      ...(from.language_code ? { languageCode: from.language_code } : {}),
    },
    text,
    mentioned: true,
    ...(reply ? { replyTo: { messageId: reply.message_id, fromBot: reply.from?.id === ctx.me.id } } : {}),
  };
}
