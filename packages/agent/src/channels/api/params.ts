// Which parts of an OpenAI chat body the agent keeps for itself.

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
]);

export function passThroughParams(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([k]) => !OWN_KEYS.has(k)));
}
