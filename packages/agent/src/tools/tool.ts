/**
 * A picture or file a tool made for the user (DESIGN §9.5: generate_image, send_file). The channel
 * delivers it beside the answer (Telegram: sendPhoto / sendDocument; the chat API: Markdown).
 */
export interface OutFile {
  kind: 'photo' | 'document';
  name: string;
  mimeType: string;
  bytes: Uint8Array;
}

/** Who a tool runs for: shared resources (the HTML pool) queue fairly by it. */
export interface ToolContext {
  /** The agent the turn belongs to. */
  tenant: string;
  /** Hands the user a picture or file beside the answer (DESIGN §9.5); absent where none can go. */
  attach?(file: OutFile): void;
  /** Pictures and files already attached in this turn (tools cap themselves by it). */
  attached?(kind: 'photo' | 'document'): number;
}

/** A tool; the owner's MCP tools may answer with images too (`Tool<string | ToolOutput>`). */
export interface Tool<Result extends string | ToolOutput = string> {
  name: string;
  emoji: string;
  description: string;
  /** JSON Schema of the arguments, as the model sees it. */
  parameters: Record<string, unknown>;
  /** A short line for people while the tool runs ("Fetching example.com"). */
  label(args: Record<string, unknown>): string;
  /** The result as text, or text with images (an MCP tool's, for a model that reads images). */
  run(args: Record<string, unknown>, signal: AbortSignal, ctx?: ToolContext): Promise<Result>;
}

/** Any tool, whatever its result. */
export type AnyTool = Tool<string | ToolOutput>;

/** A result with images beside its text: the images reach the model as data URLs. */
export interface ToolOutput {
  text: string;
  images: string[];
}

/** A tool's own failure, reported to the model as the tool's result rather than ending the turn. */
export class ToolFailure extends Error {}

/** The OpenAI "tools" array for a set of tools. */
export function toolDefinitions(tools: AnyTool[]) {
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/**
 * The JSON Schema of a tool that takes one required string argument `name` and nothing else (most
 * of Berth's own tools): spelled once, so every such tool asks the model in the same shape.
 */
export function oneStringArgument(name: string, description?: string): Record<string, unknown> {
  return {
    type: 'object',
    properties: { [name]: description === undefined ? { type: 'string' } : { type: 'string', description } },
    required: [name],
    additionalProperties: false,
  };
}
