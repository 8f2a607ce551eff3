import { calculatorTool } from './calculator.js';
import { datetimeTool } from './datetime.js';
import { fetchPageTool } from './fetch-page.js';
import type { Tool } from './tool.js';

export type { Tool } from './tool.js';
export { ToolFailure } from './tool.js';

const shared = new Map<boolean, Tool[]>();

/** Tools hold no per-agent state, so all agents of a process share one set (and one dispatcher). */
export function builtinTools(opts: { allowPrivateFetch?: boolean } = {}): Tool[] {
  const key = opts.allowPrivateFetch === true;
  let tools = shared.get(key);
  if (!tools) {
    tools = [datetimeTool(), calculatorTool, fetchPageTool({ allowPrivate: key })];
    shared.set(key, tools);
  }
  return tools;
}

/** The OpenAI "tools" array for a set of tools. */
export function toolDefinitions(tools: Tool[]) {
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}
