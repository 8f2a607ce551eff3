// The tools an assistant offers its model, built from its settings (settings.tools). A new tool is
// one folder or file under tools/ plus one line in TOOLS below.
import type { AssistantSettings } from '@berth/contracts/settings';
import { calculatorTool } from './calculator.js';
import { datetimeTool } from './datetime.js';
import { fetchPageTool } from './fetch-page.js';
import type { Tool } from './tool.js';
import { webSearchTool, type SearchTarget } from './web-search/index.js';
import { generateImageTool } from './images/index.js';
import { sendFileTool } from './files/index.js';
import type { Painter } from '../model/media-out.js';

export type { Tool } from './tool.js';
export { ToolFailure, toolDefinitions } from './tool.js';

export type ToolSwitches = AssistantSettings['tools'];

export interface ToolOptions {
  allowPrivateFetch?: boolean;
  /** The control plane's search route and this assistant's credential; without it no web_search. */
  search?: SearchTarget;
  /** DESIGN §9.5: the provider draws (catalog "images"); without it no generate_image. */
  painter?: Painter;
  /** settings.imagesPerTurn (default 1; 0: generate_image is not offered). */
  imagesPerTurn?: number;
}

/** Each tool, under the settings switch that turns it on. Tools hold no per-assistant state. */
const TOOLS: Array<{ switch: keyof ToolSwitches; make(o: ToolOptions): Tool }> = [
  { switch: 'time', make: () => datetimeTool() },
  { switch: 'calculator', make: () => calculatorTool },
  { switch: 'webPage', make: (o) => fetchPageTool({ allowPrivate: o.allowPrivateFetch === true }) },
];

// One instance of each tool per fetch policy, so all assistants of a process share them (and the
// fetch tool's one dispatcher).
const shared = new Map<string, Tool>();

/** The tools the settings switch on (all of them when no settings are given). */
export function buildTools(switches: Partial<ToolSwitches> | undefined, opts: ToolOptions = {}): Tool[] {
  const tools: Tool[] = [];
  for (const t of TOOLS) {
    if (switches && switches[t.switch] === false) continue;
    const key = `${t.switch}:${opts.allowPrivateFetch === true}`;
    let tool = shared.get(key);
    if (!tool) {
      tool = t.make(opts);
      shared.set(key, tool);
    }
    tools.push(tool);
  }
  // web_search carries this assistant's own credential: built per assistant, never shared.
  if (opts.search && switches?.webSearch !== false) tools.push(webSearchTool(opts.search));
  // DESIGN §9.5: a text file costs no call; a picture is drawn with this assistant's credential.
  tools.push(sendFileTool);
  const perTurn = opts.imagesPerTurn ?? 1;
  if (opts.painter && perTurn > 0) tools.push(generateImageTool(opts.painter, perTurn));
  return tools;
}

/** Every built-in tool. */
export const builtinTools = (opts: ToolOptions = {}) => buildTools(undefined, opts);
