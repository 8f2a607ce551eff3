// berth assistants reminders list|clear (issue 57 R5): what every end user of an assistant asked to
// be reminded of, and cancelling one (--reminder) or all of it. The assistant must be active: its
// reminders live in its running worker.
import { io } from '../io.js';
import type { Reminder } from '../api/client.js';
import { UsageError } from '../config/env.js';
import { printJson, printTable } from '../output/print.js';
import type { Ctx } from './context.js';

const USAGE = 'usage: berth assistants reminders list <id> | berth assistants reminders clear <id> [--reminder <id>]';

const short = (text: string) => {
  const line = text.split('\n')[0]!;
  return line.length > 50 ? `${line.slice(0, 47)}...` : line;
};

export async function remindersCommand(ctx: Ctx, args: string[], o: { reminder?: string }): Promise<number> {
  const [verb, id] = args;
  if (!id || args.length > 2) throw new UsageError(USAGE);
  const client = ctx.client();
  if (verb === 'list') {
    if (o.reminder !== undefined) throw new UsageError('--reminder goes with clear, not list');
    const list: Reminder[] = await client.reminders(id);
    if (ctx.json) printJson(list);
    else if (!list.length) io().stdout.write('No pending reminders.\n');
    else
      printTable([
        ['ID', 'USER', 'CHAT', 'NEXT (UTC)', 'KIND', 'TEXT'],
        ...list.map((r) => [
          r.id,
          r.user,
          r.chatId,
          r.at,
          `${r.task ? 'task' : 'reminder'}${r.cron ? ` (${r.cron})` : ''}`,
          short(r.text),
        ]),
      ]);
    return 0;
  }
  if (verb === 'clear') {
    const done = await client.clearReminders(id, o.reminder);
    if (ctx.json) printJson(done);
    else if (o.reminder !== undefined) io().stdout.write(`Cancelled reminder ${o.reminder}.\n`);
    else io().stdout.write(`Cancelled ${done.removed} pending reminder${done.removed === 1 ? '' : 's'}.\n`);
    return 0;
  }
  throw new UsageError(USAGE);
}
