// /memory, /forget, /reminders and /cancel_<id> (DESIGN §7.4): what the assistant keeps about the
// person writing, shown and cleared without a model call. Always the sender's own rows only.
import type { Bot, Context } from 'grammy';
import type { UserData } from '../storage/user-data.js';
import { telegramUser } from '../tools/end-user.js';

export interface UserCommandDeps {
  agent: string;
  data: UserData;
  features: { memory: boolean; reminders: boolean };
  wake(): void;
}

const when = (ms: number, tz: string | null) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: tz ?? 'UTC', dateStyle: 'medium', timeStyle: 'short' }).format(ms) +
  (tz ? ` (${tz})` : ' (UTC)');

export function userCommands(bot: Bot, d: UserCommandDeps) {
  const user = (ctx: Context) => (ctx.from ? telegramUser(ctx.from.id) : undefined);
  if (d.features.memory) {
    bot.command('memory', (ctx) => {
      const u = user(ctx);
      if (!u) return;
      const facts = d.data.memory.facts(d.agent, u);
      const archived = d.data.memory.archivedCount(d.agent, u);
      const lines = facts.map((f) => `• ${f.fact}`);
      const more = archived ? `\n\n(${archived} older facts are archived and no longer used.)` : '';
      return ctx.reply(
        facts.length
          ? `What I remember about you:\n${lines.join('\n')}${more}\n\n/forget clears it.`
          : `I don't remember anything about you yet.${more}`,
      );
    });
    bot.command('forget', (ctx) => {
      const u = user(ctx);
      if (!u) return;
      const n = d.data.memory.forgetAll(d.agent, u);
      return ctx.reply(n ? `Done: I forgot ${n} fact${n === 1 ? '' : 's'} about you.` : 'There was nothing to forget.');
    });
  }
  if (d.features.reminders) {
    bot.command('reminders', (ctx) => {
      const u = user(ctx);
      if (!u) return;
      const list = d.data.schedules.list(d.agent, u);
      if (list.length === 0) return ctx.reply('You have no scheduled messages.');
      const lines = list.map(
        (s) =>
          `• ${s.text.slice(0, 80)}\n  ${s.cron ? `repeats (${s.cron}), next ` : ''}${when(s.nextAt, s.timezone)} — /cancel_${s.id}`,
      );
      return ctx.reply(`Your scheduled messages:\n${lines.join('\n')}`);
    });
    bot.hears(/^\/cancel_([0-9a-f]{8})(@\w+)?$/, (ctx) => {
      const u = user(ctx);
      if (!u) return;
      const id = ctx.match[1]!;
      if (!d.data.schedules.cancel(d.agent, u, id)) return ctx.reply('No scheduled message of yours has that id.');
      d.wake();
      return ctx.reply('Cancelled.');
    });
  }
}
