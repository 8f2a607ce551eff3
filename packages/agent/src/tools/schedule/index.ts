// schedule_message, list_scheduled_messages and cancel_scheduled_message (DESIGN §7.4): bound to
// one agent, end user and the chat the request came from (where the message will be delivered).
import { randomBytes } from 'node:crypto';
import type { ScheduleRepo, Schedule } from '../../storage/schedules.js';
import type { EndUser } from '../end-user.js';
import { oneStringArgument, ToolFailure, type Tool } from '../tool.js';
import { plan } from './when.js';

export const MAX_ACTIVE_SCHEDULES = 50;
/**
 * One end user's share of the assistant's 50 (issue 57 R5: one user took all 50, and nobody else
 * could set a reminder). Five users can still fill it; an owner sees and clears them (admin).
 */
export const MAX_ACTIVE_SCHEDULES_PER_USER = 10;
export const MAX_SCHEDULE_TEXT = 1000;

export interface ScheduleDeps {
  schedules: ScheduleRepo;
  /** Tells the host's one timer that the earliest due time may have changed. */
  wake(): void;
  now?: () => number;
  /** The user's zone, else the owner's default (DESIGN §9.4): a time without a zone is in it. */
  zone?: () => string | undefined;
  /**
   * Why the chat's channel could not deliver at `nextAt` (WhatsApp's 24-hour window), in a
   * sentence for the user; undefined when it can. Asked before anything is stored.
   */
  refusal?: (nextAt: number, repeats: boolean) => string | undefined;
}

/** Lower-case hex: usable as a Telegram command suffix (/cancel_3f9a0c1b). */
export const newScheduleId = () => randomBytes(4).toString('hex');

export const describeSchedule = (s: Schedule) => ({
  id: s.id,
  text: s.text,
  task: s.task,
  next: new Date(s.nextAt).toISOString(),
  ...(s.cron ? { cron: s.cron } : { at: s.at }),
  ...(s.timezone ? { timezone: s.timezone } : {}),
});

export function scheduleTools(deps: ScheduleDeps, who: EndUser & { chat: string }): Tool[] {
  const now = deps.now ?? Date.now;
  const schedule: Tool = {
    name: 'schedule_message',
    emoji: '⏰',
    description:
      'Send the user a message later in this chat: once at "at" (ISO 8601 local time in "timezone", or with an offset), or repeatedly by "cron" (5 fields, at most hourly). With "task": true the text is a prompt you will answer at that time (e.g. "summarise today\'s weather in Paris").',
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string' },
        at: { type: 'string', description: 'ISO 8601, e.g. 2026-05-01T09:00:00' },
        cron: { type: 'string', description: 'e.g. "0 9 * * 1" for Mondays at 09:00' },
        timezone: {
          type: 'string',
          description: "IANA time zone, e.g. Europe/Berlin; the user's own when absent (UTC if unknown)",
        },
        task: { type: 'boolean' },
      },
      required: ['text'],
      additionalProperties: false,
    },
    label: () => 'Scheduling a message',
    async run(args) {
      const text = typeof args.text === 'string' ? args.text.trim() : '';
      if (!text) throw new ToolFailure('Give the message to send as "text".');
      if (text.length > MAX_SCHEDULE_TEXT)
        throw new ToolFailure(`The text may be at most ${MAX_SCHEDULE_TEXT} characters.`);
      // A local time without a zone is the user's local time, as they meant it (issue 62: "remind
      // me at 9" was stored as 09:00 UTC).
      const zone = deps.zone?.();
      const when = plan(zone && !args.timezone ? { ...args, timezone: zone } : args, now());
      if (!when.ok) throw new ToolFailure(when.message);
      const refused = deps.refusal?.(when.nextAt, Boolean(when.cron));
      if (refused) throw new ToolFailure(refused);
      if (deps.schedules.countActiveOf(who.agent, who.user) >= MAX_ACTIVE_SCHEDULES_PER_USER)
        throw new ToolFailure(
          `This user already has ${MAX_ACTIVE_SCHEDULES_PER_USER} active scheduled messages, the most one person may keep here; cancel one first (list_scheduled_messages).`,
        );
      if (deps.schedules.countActive(who.agent) >= MAX_ACTIVE_SCHEDULES)
        throw new ToolFailure(
          `This assistant already has ${MAX_ACTIVE_SCHEDULES} active scheduled messages, the most it may keep; cancel one first.`,
        );
      const s = deps.schedules.add({
        id: newScheduleId(),
        agent: who.agent,
        user: who.user,
        chat: who.chat,
        text,
        task: args.task === true,
        at: when.at,
        cron: when.cron,
        timezone: when.timezone,
        nextAt: when.nextAt,
      });
      deps.wake();
      return JSON.stringify({ ok: true, scheduled: describeSchedule(s) });
    },
  };
  const list: Tool = {
    name: 'list_scheduled_messages',
    emoji: '📋',
    description: "The user's active scheduled messages and tasks.",
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    label: () => 'Listing scheduled messages',
    async run() {
      return JSON.stringify({ scheduled: deps.schedules.list(who.agent, who.user).map(describeSchedule) });
    },
  };
  const cancel: Tool = {
    name: 'cancel_scheduled_message',
    emoji: '🗑️',
    description: "Cancel one of the user's scheduled messages by its id.",
    parameters: oneStringArgument('id'),
    label: () => 'Cancelling a scheduled message',
    async run(args) {
      const id = typeof args.id === 'string' ? args.id.trim() : '';
      if (!id || !deps.schedules.cancel(who.agent, who.user, id))
        throw new ToolFailure(`No active scheduled message of yours has the id "${id}" (not found).`);
      deps.wake();
      return JSON.stringify({ ok: true, cancelled: id });
    },
  };
  return [schedule, list, cancel];
}
