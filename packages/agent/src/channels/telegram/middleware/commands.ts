// /start, /help and /reset: Berth's own answers, no model call.
import { Composer, type Context } from 'grammy';
import type { Texts } from '../texts/index.js';

export interface CommandDeps {
  texts(ctx: Context): Texts;
  /** The owner's answer to /start, when set (settings.welcomeMessage). */
  welcome(): string | null;
  /** Starts a new conversation in this chat. */
  reset(chatId: number): void;
}

export function commands(d: CommandDeps): Composer<Context> {
  const c = new Composer<Context>();
  c.command('start', (ctx) => ctx.reply(d.welcome() ?? d.texts(ctx).welcome));
  c.command('help', (ctx) => ctx.reply(d.texts(ctx).help));
  c.command('reset', (ctx) => {
    d.reset(ctx.chat.id);
    return ctx.reply(d.texts(ctx).reset);
  });
  return c;
}
