// /memory, /forget, /reminders, /cancel_<id> and /timezone (DESIGN §7.4, §9.4): what the assistant
// keeps about the person writing, shown and changed without a model call, in their language. Always
// the sender's own rows only, the sender as senderOf names them (a chat posting as itself has its
// own rows, not the stand-in's).
import { canonicalTimeZone } from '@berth/contracts/settings';
import { Composer, type Context } from 'grammy';
import { telegramUser } from '../../../core/inbound.js';
import { fill, type Texts } from '../texts/index.js';
import { roomOf, textsOf } from './room.js';
import { senderOf } from './sender.js';

const localTime = (t: Texts, ms: number, tz: string, style: 'medium' | 'none' = 'medium') =>
  new Intl.DateTimeFormat(t.locale, {
    timeZone: tz,
    ...(style === 'none' ? {} : { dateStyle: style }),
    timeStyle: 'short',
  }).format(ms);

const when = (t: Texts, ms: number, tz: string) => `${localTime(t, ms, tz)} (${tz})`;

// Read per update: the owner may switch memory or reminders off while the bot runs.
const on = (ctx: Context, feature: 'memory' | 'reminders') =>
  roomOf(ctx).userData !== undefined && roomOf(ctx).settings().tools[feature];

export function userCommands(): Composer<Context> {
  const c = new Composer<Context>();
  const memory = c.filter((ctx) => on(ctx, 'memory'));
  const reminders = c.filter((ctx) => on(ctx, 'reminders'));
  memory.command('memory', (ctx) => {
    const who = senderOf(ctx);
    if (!who) return;
    const { agent, userData } = roomOf(ctx);
    const t = textsOf(ctx);
    const u = telegramUser(who.id);
    const facts = userData!.memory.facts(agent, u);
    const archived = userData!.memory.archivedCount(agent, u);
    const more = archived ? `\n\n${fill(t.memoryArchived, { n: archived })}` : '';
    return ctx.reply(
      facts.length
        ? `${t.memoryHeader}\n${facts.map((f) => `• ${f.fact}`).join('\n')}${more}\n\n${t.memoryForgetHint}`
        : `${t.memoryEmpty}${more}`,
    );
  });
  memory.command('forget', (ctx) => {
    const who = senderOf(ctx);
    if (!who) return;
    const { agent, userData } = roomOf(ctx);
    const t = textsOf(ctx);
    const n = userData!.memory.forgetAll(agent, telegramUser(who.id));
    return ctx.reply(n === 0 ? t.nothingToForget : n === 1 ? t.forgotOne : fill(t.forgotMany, { n }));
  });
  reminders.command('reminders', (ctx) => {
    const who = senderOf(ctx);
    if (!who) return;
    const room = roomOf(ctx);
    const { agent, userData } = room;
    const t = textsOf(ctx);
    const u = telegramUser(who.id);
    const list = userData!.schedules.list(agent, u);
    if (list.length === 0) return ctx.reply(t.remindersEmpty);
    // Shown in the user's zone now (they may have moved since), else the one it was set in.
    const zone = userData!.prefs.timezone(agent, u) ?? room.settings().timezone ?? undefined;
    const lines = list.map(
      (s) =>
        `• ${s.text.slice(0, 80)}\n  ${s.cron ? `${fill(t.remindersRepeats, { cron: s.cron })} ` : ''}${when(t, s.nextAt, zone ?? s.timezone ?? 'UTC')} — /cancel_${s.id}`,
    );
    // A cancel button per reminder (DESIGN §9.4), beside the /cancel_<id> commands.
    const buttons = list.map((s) => [
      { text: fill(t.cancelButton, { text: s.text.slice(0, 24) }), callback_data: `rem:c:${s.id}` },
    ]);
    return ctx.reply(`${t.remindersHeader}\n${lines.join('\n')}`, { reply_markup: { inline_keyboard: buttons } });
  });
  reminders.callbackQuery(/^rem:c:([0-9a-f]{8})$/, async (ctx) => {
    const room = roomOf(ctx);
    const t = textsOf(ctx);
    // Only the presser's own reminders: a forwarded list cancels nothing of its first reader's.
    const cancelled = room.userData!.schedules.cancel(room.agent, telegramUser(ctx.from.id), ctx.match[1]!);
    if (!cancelled) return ctx.answerCallbackQuery({ text: t.cancelUnknown });
    room.wakeScheduler();
    await ctx.answerCallbackQuery({ text: t.cancelled });
    // The pressed button goes; the others stay.
    const keyboard = ctx.callbackQuery.message?.reply_markup?.inline_keyboard ?? [];
    const rest = keyboard.filter(
      (row) => !row.some((b) => 'callback_data' in b && b.callback_data === ctx.callbackQuery.data),
    );
    await ctx.editMessageReplyMarkup({ reply_markup: { inline_keyboard: rest } }).catch(() => {});
  });
  reminders.hears(/^\/cancel_([0-9a-f]{8})(@\w+)?$/, (ctx) => {
    const who = senderOf(ctx);
    if (!who) return;
    const room = roomOf(ctx);
    const t = textsOf(ctx);
    if (!room.userData!.schedules.cancel(room.agent, telegramUser(who.id), ctx.match[1]!))
      return ctx.reply(t.cancelUnknown);
    room.wakeScheduler();
    return ctx.reply(t.cancelled);
  });
  c.filter((ctx) => roomOf(ctx).userData !== undefined).command('timezone', (ctx) => {
    const who = senderOf(ctx);
    if (!who) return;
    const { agent, userData } = roomOf(ctx);
    const t = textsOf(ctx);
    const u = telegramUser(who.id);
    const given = ctx.match.trim();
    if (!given) {
      const zone = userData!.prefs.timezone(agent, u);
      return ctx.reply(
        zone ? fill(t.timezoneIs, { zone, time: localTime(t, Date.now(), zone, 'none') }) : t.timezoneUnknown,
      );
    }
    const zone = canonicalTimeZone(given);
    if (!zone) return ctx.reply(fill(t.timezoneInvalid, { given: given.slice(0, 64) }));
    userData!.prefs.setTimezone(agent, u, zone);
    return ctx.reply(fill(t.timezoneSet, { zone, time: localTime(t, Date.now(), zone, 'none') }));
  });
  return c;
}
