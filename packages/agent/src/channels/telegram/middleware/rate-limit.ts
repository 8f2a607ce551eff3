// One chat flooding cannot take every slot nor the owner's model budget: past its rate, one
// notice, then silence until the minute is over. Each bot has its own budget (BotRoom.chatLimiter).
import type { Context, NextFunction } from 'grammy';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { roomOf, textsOf } from './room.js';

export async function rateLimit(ctx: Context, next: NextFunction) {
  if (!ctx.chat) return next();
  const { limiter, perMinute } = roomOf(ctx).chatLimiter();
  try {
    await limiter.consume(String(ctx.chat.id));
  } catch (res) {
    if (!(res instanceof RateLimiterRes)) throw res;
    if (res.consumedPoints === perMinute + 1) await ctx.reply(textsOf(ctx).slowDown).catch(() => {});
    return;
  }
  return next();
}
