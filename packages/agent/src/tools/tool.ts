export interface Tool {
  name: string;
  emoji: string;
  description: string;
  /** JSON Schema of the arguments, as the model sees it. */
  parameters: Record<string, unknown>;
  /** A short line for people while the tool runs ("Fetching example.com"). */
  label(args: Record<string, unknown>): string;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

/** A tool's own failure, reported to the model as the tool's result rather than ending the turn. */
export class ToolFailure extends Error {}

/** The OpenAI "tools" array for a set of tools. */
export function toolDefinitions(tools: Tool[]) {
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}
