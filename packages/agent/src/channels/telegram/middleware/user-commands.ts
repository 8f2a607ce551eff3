// /memory, /forget, /reminders and /cancel_<id> (DESIGN §7.4): what the assistant keeps about the
// person writing, shown and cleared without a model call. Always the sender's own rows only, the
// sender as senderOf names them (a chat posting as itself has its own rows, not the stand-in's).
import { Composer, type Context } from 'grammy';
import { telegramUser } from '../../../core/inbound.js';
import { roomOf } from './room.js';
import { senderOf } from './sender.js';

const when = (ms: number, tz: string | null) =>
  `${new Intl.DateTimeFormat('en-GB', { timeZone: tz ?? 'UTC', dateStyle: 'medium', timeStyle: 'short' }).format(ms)} (${tz ?? 'UTC'})`;

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
    const u = telegramUser(who.id);
    const facts = userData!.memory.facts(agent, u);
    const archived = userData!.memory.archivedCount(agent, u);
    const more = archived ? `\n\n(${archived} older facts are archived and no longer used.)` : '';
    return ctx.reply(
      facts.length
        ? `What I remember about you:\n${facts.map((f) => `• ${f.fact}`).join('\n')}${more}\n\n/forget clears it.`
        : `I don't remember anything about you yet.${more}`,
    );
  });
  memory.command('forget', (ctx) => {
    const who = senderOf(ctx);
    if (!who) return;
    const { agent, userData } = roomOf(ctx);
    const n = userData!.memory.forgetAll(agent, telegramUser(who.id));
    return ctx.reply(n ? `Done: I forgot ${n} fact${n === 1 ? '' : 's'} about you.` : 'There was nothing to forget.');
  });
  reminders.command('reminders', (ctx) => {
    const who = senderOf(ctx);
    if (!who) return;
    const { agent, userData } = roomOf(ctx);
    const list = userData!.schedules.list(agent, telegramUser(who.id));
    if (list.length === 0) return ctx.reply('You have no scheduled messages.');
    const lines = list.map(
      (s) =>
        `• ${s.text.slice(0, 80)}\n  ${s.cron ? `repeats (${s.cron}), next ` : ''}${when(s.nextAt, s.timezone)} — /cancel_${s.id}`,
    );
    return ctx.reply(`Your scheduled messages:\n${lines.join('\n')}`);
  });
  reminders.hears(/^\/cancel_([0-9a-f]{8})(@\w+)?$/, (ctx) => {
    const who = senderOf(ctx);
    if (!who) return;
    const room = roomOf(ctx);
    if (!room.userData!.schedules.cancel(room.agent, telegramUser(who.id), ctx.match[1]!))
      return ctx.reply('No scheduled message of yours has that id.');
    room.wakeScheduler();
    return ctx.reply('Cancelled.');
  });
  return c;
}
