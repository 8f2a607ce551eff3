// /start, /help and /reset: Berth's own answers, no model call. In groups only administrators may
// /reset (getChatMember), so one member cannot wipe the conversation of all. A message the group
// itself sent (sender_chat is the group) comes from one of its anonymous administrators.
import { Composer, GrammyError, type Context } from 'grammy';
import { isGroup } from './mention-gate.js';
import { roomOf, textsOf } from './room.js';
import { senderOf } from './sender.js';
import { helpText } from '../texts/index.js';
import { topicOf } from '../bursts.js';

const ADMINS = new Set(['creator', 'administrator']);

const answer = (ctx: Context, text: string) =>
  ctx.reply(text, isGroup(ctx) && ctx.message ? { reply_parameters: { message_id: ctx.message.message_id } } : {});

export function commands(): Composer<Context> {
  const c = new Composer<Context>();
  // The owner's answer to /start, when set (settings.welcomeMessage); the built-in one when
  // Telegram refuses it (issue 57 R10: a welcome stored before the check counted as Telegram
  // does left /start unanswered), so /start is never met with silence.
  c.command('start', async (ctx) => {
    const own = roomOf(ctx).settings().welcomeMessage;
    if (own) {
      try {
        return await answer(ctx, own);
      } catch (err) {
        if (!(err instanceof GrammyError && err.error_code === 400)) throw err;
      }
    }
    return answer(ctx, textsOf(ctx).welcome);
  });
  c.command('help', (ctx) => {
    const { tools } = roomOf(ctx).settings();
    return answer(ctx, helpText(textsOf(ctx), { memory: tools.memory, reminders: tools.reminders }));
  });
  c.command('reset', async (ctx) => {
    if (isGroup(ctx) && senderOf(ctx)?.id !== ctx.chat.id) {
      const member = ctx.from ? await ctx.getChatMember(ctx.from.id).catch(() => undefined) : undefined;
      if (!member || !ADMINS.has(member.status)) return answer(ctx, textsOf(ctx).resetAdminsOnly);
    }
    // A forum topic is a conversation of its own (DESIGN §9.4): /reset there starts that one anew.
    roomOf(ctx).resetChat(ctx.chat.id, topicOf(ctx.message));
    return answer(ctx, textsOf(ctx).reset);
  });
  return c;
}
