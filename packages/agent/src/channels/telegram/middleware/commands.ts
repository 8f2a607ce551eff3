// /start, /help and /reset: Berth's own answers, no model call. In groups only administrators may
// /reset (getChatMember), so one member cannot wipe the conversation of all.
import { Composer, type Context } from 'grammy';
import type { Texts } from '../texts/index.js';
import { isGroup } from './mention-gate.js';

export interface CommandDeps {
  texts(ctx: Context): Texts;
  /** The owner's answer to /start, when set (settings.welcomeMessage). */
  welcome(): string | null;
  /** Starts a new conversation in this chat. */
  reset(chatId: number): void;
}

const ADMINS = new Set(['creator', 'administrator']);

export function commands(d: CommandDeps): Composer<Context> {
  const c = new Composer<Context>();
  const answer = (ctx: Context, text: string) =>
    ctx.reply(text, isGroup(ctx) && ctx.message ? { reply_parameters: { message_id: ctx.message.message_id } } : {});
  c.command('start', (ctx) => answer(ctx, d.welcome() ?? d.texts(ctx).welcome));
  c.command('help', (ctx) => answer(ctx, d.texts(ctx).help));
  c.command('reset', async (ctx) => {
    if (isGroup(ctx)) {
      const member = ctx.from ? await ctx.getChatMember(ctx.from.id).catch(() => undefined) : undefined;
      if (!member || !ADMINS.has(member.status)) return answer(ctx, d.texts(ctx).resetAdminsOnly);
    }
    d.reset(ctx.chat.id);
    return answer(ctx, d.texts(ctx).reset);
  });
  return c;
}
