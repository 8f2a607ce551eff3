import { ToolFailure, type Tool } from './tool.js';

export const datetimeTool = (now: () => Date = () => new Date()): Tool => ({
  name: 'current_datetime',
  emoji: '🕒',
  description: 'Current date and time in a given IANA time zone (for example "Europe/Berlin"). Defaults to UTC.',
  parameters: {
    type: 'object',
    properties: { timezone: { type: 'string', description: 'IANA time zone name, e.g. "America/New_York"' } },
    additionalProperties: false,
  },
  label: (args) => `Checking the time${typeof args.timezone === 'string' ? ` in ${args.timezone}` : ''}`,
  async run(args) {
    const timeZone = typeof args.timezone === 'string' && args.timezone ? args.timezone : 'UTC';
    const at = now();
    let text: string;
    try {
      text = new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'full', timeStyle: 'long' }).format(at);
    } catch {
      throw new ToolFailure(`Unknown time zone "${timeZone}". Use an IANA name such as "Europe/Paris".`);
    }
    return JSON.stringify({ timezone: timeZone, local: text, iso_utc: at.toISOString() });
  },
});
