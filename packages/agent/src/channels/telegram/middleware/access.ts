// Who may talk to the bot (settings.access, DESIGN §7.1), before anything else handles an update:
// a refused user gets one of Berth's sentences and never a model call, so strangers cost the owner
// nothing. open: anyone; allowlist: only telegramUserIds; pairing: others get an 8-character code
// to send the owner, who approves it in the dashboard or CLI. perUserDailyReplies caps each
// user's messages per UTC day: past it, one sentence that day, then silence.
import type { Context, MiddlewareFn } from 'grammy';
import type { AssistantSettings } from '@berth/contracts/settings';
import type { AccessStore } from '../../../storage/access.js';
import type { Texts } from '../texts/index.js';

export interface AccessDeps {
  agent: string;
  store: AccessStore;
  settings(): AssistantSettings;
  texts(ctx: Context): Texts;
  now?: () => number;
}

export function access(d: AccessDeps): MiddlewareFn<Context> {
  const now = d.now ?? Date.now;
  return async (ctx, next) => {
    const from = ctx.from;
    // Only people's messages are gated; other updates (edits, joins) reach no model anyway.
    if (!ctx.message || !from || from.is_bot) return next();
    const rules = d.settings().access;
    const known = rules.telegramUserIds.includes(from.id);
    if (rules.mode === 'allowlist' && !known) return void (await ctx.reply(d.texts(ctx).notAllowed));
    if (rules.mode === 'pairing' && !known) {
      const name = [from.first_name, from.last_name].filter(Boolean).join(' ') || from.username || null;
      const code = d.store.pairingFor(d.agent, from.id, name, now());
      return void (await ctx.reply(d.texts(ctx).pairing.replace('{code}', code)));
    }
    if (rules.perUserDailyReplies !== null) {
      const verdict = d.store.countReply(d.agent, from.id, rules.perUserDailyReplies, now());
      if (verdict === 'first_over') return void (await ctx.reply(d.texts(ctx).dailyLimit));
      if (verdict === 'over') return;
    }
    return next();
  };
}
