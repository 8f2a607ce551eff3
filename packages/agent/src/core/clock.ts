// The user's local date and time, as one system block of every model call (DESIGN §9.4): models
// know no "now", and "remind me at 9" or "what's on tomorrow" need one. The zone is the user's own
// (/timezone, set_timezone), else the owner's default (settings.timezone); with neither, UTC and
// an instruction to ask when the answer depends on it. Minutes only: the block changes once a minute.

export type ZoneSource = 'user' | 'owner' | 'none';

/**
 * One formatter per zone, made once: making one costs about a millisecond, which every model call
 * paid (1.5 s of the host's loop for 1,000 chats at once, issue 64). Zones are IANA names, a few
 * hundred; spellings past MAX_FORMATTERS start the cache afresh rather than grow it.
 */
const MAX_FORMATTERS = 1000;
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterOf(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: tz,
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'shortOffset',
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(tz, f);
  }
  return f;
}

/** `canSave`: the set_timezone tool is offered (a known end user), so the model may keep the answer. */
export function clockBlock(now: Date, zone: string | undefined, source: ZoneSource, canSave = false): string {
  const tz = zone ?? 'UTC';
  let local: string;
  try {
    local = formatterOf(tz).format(now);
  } catch {
    return clockBlock(now, undefined, 'none', canSave);
  }
  if (source === 'none')
    return `Now: ${local} (UTC). The user's time zone is unknown: when an answer or a reminder depends on their local time, ask where they are${canSave ? ', then save it with set_timezone' : ''}.`;
  const whose =
    source === 'user' ? "the user's time zone" : "the assistant's default time zone; the user has not given theirs";
  return `Now: ${local} in ${tz} (${whose}). Times the user mentions are in this zone unless they say otherwise.`;
}
