import { calculatorTool } from './calculator.js';
import { datetimeTool } from './datetime.js';
import { fetchPageTool } from './fetch-page.js';
import type { Tool } from './tool.js';

export type { Tool } from './tool.js';
export { ToolFailure } from './tool.js';

export function builtinTools(opts: { allowPrivateFetch?: boolean } = {}): Tool[] {
  return [datetimeTool(), calculatorTool, fetchPageTool({ allowPrivate: opts.allowPrivateFetch })];
}

/** The OpenAI "tools" array for a set of tools. */
export function toolDefinitions(tools: Tool[]) {
  return tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } }));
}
