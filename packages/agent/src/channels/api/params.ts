// Which parts of an OpenAI chat body the agent keeps for itself.
import { SETTINGS_PREVIEW_FIELD } from '@berth/contracts/settings/preview';

/** Keys the agent owns; everything else the client sends reaches the provider unchanged. */
const OWN_KEYS = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'functions',
  'function_call',
  'n',
  // The dashboard's unsaved settings: read by the turn, never sent to the provider.
  SETTINGS_PREVIEW_FIELD,
]);

export function passThroughParams(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([k]) => !OWN_KEYS.has(k)));
}
