// Who may talk to the bot (settings.access, DESIGN §7.1), before Berth's commands and the model:
// a refused sender gets one of Berth's sentences and never a model call, so strangers cost the
// owner nothing. open: anyone; allowlist: only telegramUserIds; pairing: others get an 8-character
// code to send the owner, who approves it in the dashboard or CLI; blockedTelegramUserIds are
// refused in every mode. perUserDailyReplies caps each
// sender's messages per UTC day: past it, one sentence that day, then silence. Words are counted
// where their burst opens (dailyReply, from bot.ts): a burst is one reply however many messages it
// gathers (decision 0033); Berth's own commands cost no model call and are not counted. The sender is
// senderOf's: a chat posting through Telegram's stand-in bots is gated as that chat, other bots
// are not answered at all. In groups it runs after the mention gate, so only messages addressed
// to the bot are refused or counted.
import type { Context, NextFunction } from 'grammy';
import { type BotRoom, roomOf, textsOf } from './room.js';
import { senderOf } from './sender.js';

export async function access(ctx: Context, next: NextFunction) {
  // Only messages are gated; other updates (edits, joins) reach no model anyway.
  if (!ctx.message) return next();
  const who = senderOf(ctx);
  if (!who) return;
  const room = roomOf(ctx);
  const rules = room.settings().access;
  if (rules.blockedTelegramUserIds?.includes(who.id)) return void (await ctx.reply(textsOf(ctx).notAllowed));
  // The owner's own account (settings.owner, DESIGN §9.3) talks to their bot in every mode.
  const known = rules.telegramUserIds.includes(who.id) || who.id === room.settings().owner?.telegramUserId;
  if (rules.mode === 'allowlist' && !known) return void (await ctx.reply(textsOf(ctx).notAllowed));
  if (rules.mode === 'pairing' && !known) {
    const code = room.accessStore.pairingFor(room.agent, who.id, who.name, Date.now());
    return void (await ctx.reply(textsOf(ctx).pairing.replace('{code}', code)));
  }
  if (ctx.message.text === undefined && !(await dailyReply(ctx))) return;
  return next();
}

/** Counts one reply against the sender's daily cap; false (after the one sentence) past it. */
export async function dailyReply(ctx: Context): Promise<boolean> {
  const room = roomOf(ctx);
  const cap = room.settings().access.perUserDailyReplies;
  const who = senderOf(ctx);
  if (cap === null || !who) return true;
  const verdict = room.accessStore.countReply(room.agent, who.id, cap, Date.now());
  if (verdict === 'first_over') await ctx.reply(textsOf(ctx).dailyLimit).catch(() => {});
  return verdict === 'ok';
}

/**
 * The same rules for a scheduled occurrence of `userId` (a reminder or a task they asked for):
 * a user the owner no longer allows gets nothing (and makes no pairing code); a task's turn
 * counts against perUserDailyReplies like a message, a plain reminder (no model call) does not.
 */
export function admitScheduled(
  room: Pick<BotRoom, 'agent' | 'accessStore' | 'settings'>,
  userId: number,
  task: boolean,
  now: number,
): 'ok' | 'not_allowed' | 'first_over' | 'over' {
  const rules = room.settings().access;
  if (rules.blockedTelegramUserIds?.includes(userId)) return 'not_allowed';
  if (rules.mode !== 'open' && !rules.telegramUserIds.includes(userId)) return 'not_allowed';
  if (!task || rules.perUserDailyReplies === null) return 'ok';
  return room.accessStore.countReply(room.agent, userId, rules.perUserDailyReplies, now);
}
