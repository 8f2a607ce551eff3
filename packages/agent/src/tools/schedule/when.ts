// When a schedule fires: a one-shot ISO 8601 time or a cron pattern, in an IANA time zone, with
// croner doing the calendar arithmetic (DST, month lengths). Every refusal is a sentence for the model.
import { Cron } from 'croner';

/** How far ahead a one-off message may be set: a year and a day (a birthday next year). */
export const MAX_AHEAD_DAYS = 366;
const MAX_AHEAD_MS = MAX_AHEAD_DAYS * 24 * 3600_000;

/** Repeats at most hourly (DESIGN §7.4); checked over this many consecutive occurrences. */
export const MIN_REPEAT_MS = 3_600_000;
const REPEAT_SAMPLE = 48;
const HAS_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i;

export type Plan =
  | { ok: true; nextAt: number; at: string | null; cron: string | null; timezone: string | null }
  | { ok: false; message: string };

export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The next occurrence of `cron` in `timezone` strictly after `after`, or undefined when none. */
export function nextOccurrence(cron: string, timezone: string | null, after: number): number | undefined {
  const next = new Cron(cron, { paused: true, ...(timezone ? { timezone } : {}) }).nextRun(new Date(after));
  return next ? next.getTime() : undefined;
}

export function plan(input: { at?: unknown; cron?: unknown; timezone?: unknown }, now: number): Plan {
  const at = typeof input.at === 'string' && input.at.trim() ? input.at.trim() : undefined;
  const cron = typeof input.cron === 'string' && input.cron.trim() ? input.cron.trim() : undefined;
  const timezone = typeof input.timezone === 'string' && input.timezone.trim() ? input.timezone.trim() : undefined;
  if (!at === !cron) return { ok: false, message: 'Give exactly one of "at" (an ISO 8601 time) or "cron".' };
  if (timezone && !validTimeZone(timezone))
    return { ok: false, message: `"${timezone}" is not a time zone; use an IANA name such as "Europe/Paris".` };
  if (at) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(at))
      return { ok: false, message: `"${at}" is not an ISO 8601 time such as "2026-05-01T09:00:00".` };
    let t: number;
    if (HAS_OFFSET.test(at)) t = Date.parse(at);
    else {
      // A local time: in the given zone, else UTC. croner resolves it (DST included).
      const local = at.length === 16 ? `${at}:00` : at.replace(/\.\d+$/, '');
      t = new Cron(local, { paused: true, timezone: timezone ?? 'UTC' }).nextRun(new Date(0))?.getTime() ?? Number.NaN;
    }
    if (!Number.isFinite(t)) return { ok: false, message: `"${at}" is not a valid time.` };
    if (t <= now)
      return {
        ok: false,
        message: `${at} has already passed (it is now ${new Date(now).toISOString()}). Choose a time in the future.`,
      };
    // Issue 57 R5: a reminder for the year 9999 held its slot for ever.
    if (t > now + MAX_AHEAD_MS)
      return {
        ok: false,
        message: `${at} is too far ahead: a message can be scheduled at most ${MAX_AHEAD_DAYS} days ahead (until ${new Date(now + MAX_AHEAD_MS).toISOString().slice(0, 10)}).`,
      };
    return { ok: true, nextAt: t, at, cron: null, timezone: timezone ?? null };
  }
  let runs: Date[];
  try {
    runs = new Cron(cron!, { paused: true, ...(timezone ? { timezone } : {}) }).nextRuns(REPEAT_SAMPLE, new Date(now));
  } catch (err) {
    return { ok: false, message: `"${cron}" is not a cron pattern: ${(err as Error).message}` };
  }
  if (runs.length === 0) return { ok: false, message: `"${cron}" never fires after now.` };
  for (let i = 1; i < runs.length; i++) {
    if (runs[i]!.getTime() - runs[i - 1]!.getTime() < MIN_REPEAT_MS)
      return {
        ok: false,
        message: `"${cron}" repeats more often than once an hour; a repeating message may come at most hourly.`,
      };
  }
  return { ok: true, nextAt: runs[0]!.getTime(), at: null, cron: cron!, timezone: timezone ?? null };
}
