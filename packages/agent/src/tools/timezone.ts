// set_timezone (DESIGN §9.4): the model saves the user's time zone once they said where they are,
// so their reminders, and the "now" of every later call, are in their local time. The user can do
// the same with /timezone.
import { canonicalTimeZone } from '@berth/contracts/settings';
import type { UserPrefsRepo } from '../storage/user-prefs.js';
import type { EndUser } from './end-user.js';
import { oneStringArgument, ToolFailure, type Tool } from './tool.js';

export function timezoneTool(prefs: Pick<UserPrefsRepo, 'setTimezone'>, who: EndUser): Tool {
  return {
    name: 'set_timezone',
    emoji: '🌍',
    description:
      "Save the user's IANA time zone (e.g. Europe/Berlin) once they told you where they are; their times and reminders are then in it.",
    parameters: oneStringArgument('timezone', 'IANA name, e.g. America/New_York'),
    label: () => 'Saving the time zone',
    async run(args) {
      const given = typeof args.timezone === 'string' ? args.timezone : '';
      const zone = canonicalTimeZone(given);
      if (!zone)
        throw new ToolFailure(`"${given.slice(0, 64)}" is not a time zone; use an IANA name such as "Europe/Paris".`);
      prefs.setTimezone(who.agent, who.user, zone);
      return JSON.stringify({ ok: true, timezone: zone });
    },
  };
}
