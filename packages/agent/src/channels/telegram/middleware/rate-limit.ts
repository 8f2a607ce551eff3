// One chat flooding cannot take every slot nor the owner's model budget: past its rate, one
// notice, then silence until the minute is over.
import type { Context, MiddlewareFn } from 'grammy';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Texts } from '../texts/index.js';

export function rateLimit(perMinute: number, texts: (ctx: Context) => Texts): MiddlewareFn<Context> {
  const perChat = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return async (ctx, next) => {
    if (!ctx.chat) return next();
    try {
      await perChat.consume(String(ctx.chat.id));
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      if (res.consumedPoints === perMinute + 1) await ctx.reply(texts(ctx).slowDown).catch(() => {});
      return;
    }
    return next();
  };
}
