// One chat flooding cannot take every slot nor the owner's model budget: past its rate, one
// notice, then silence until the minute is over. Each bot has its own budget (BotRoom.chatLimiter).
// The budget counts turns: words are counted where their burst opens (chatBudget, from bot.ts), so
// a burst costs one point however many messages it gathers (decision 0033); each file is a turn.
import type { Context, NextFunction } from 'grammy';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { roomOf, textsOf } from './room.js';

export async function rateLimit(ctx: Context, next: NextFunction) {
  if (await chatBudget(ctx)) return next();
}

/** Takes one turn from the chat's budget; false (after the one notice) past it. */
export async function chatBudget(ctx: Context): Promise<boolean> {
  if (!ctx.chat) return true;
  const { limiter, perMinute } = roomOf(ctx).chatLimiter();
  try {
    await limiter.consume(String(ctx.chat.id));
    return true;
  } catch (res) {
    if (!(res instanceof RateLimiterRes)) throw res;
    if (res.consumedPoints === perMinute + 1) await ctx.reply(textsOf(ctx).slowDown).catch(() => {});
    return false;
  }
}
