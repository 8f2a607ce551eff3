// A settings change on a running assistant (DESIGN §7.1): the persona, the tool switches, the
// access rules and the limits are read per turn and per update, so swapping the document is the
// whole change. Settings carry no credentials, so the Telegram channel keeps polling: no update is
// fetched twice or skipped, and a turn already running finishes with what it started with.
// A channel restarts only through PUT /agents/{name} with new credentials (runtime/host.ts).
import { checkSettings, type AssistantSettings } from '@berth/contracts/settings';
import { AgentError } from '../errors.js';
import type { Assistant } from './assistant.js';

/** The document when it is valid settings, else a 400 naming the first problems. */
export function parseSettings(body: unknown): AssistantSettings {
  const checked = checkSettings(body);
  if (!checked.ok) throw new AgentError('INVALID_REQUEST', `Invalid settings: ${checked.message}`);
  return checked.settings;
}

export function applySettings(assistant: Assistant, settings: AssistantSettings): void {
  assistant.useSettings(settings);
}
