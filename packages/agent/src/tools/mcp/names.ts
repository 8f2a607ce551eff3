// Tool names as the model API takes them: ^[a-zA-Z0-9_-]{1,64}$ (OpenAI's rule, the strictest of
// the providers Berth speaks to). An MCP tool is offered as mcp_<server>_<tool>; a tool whose name
// cannot fit is left out, and the owner is told (a server naming a tool with 10,000 characters).
export const MODEL_TOOL_NAME_MAX = 64;

export function modelToolName(server: string, tool: string): string | undefined {
  if (tool.length === 0) return undefined;
  const name = `mcp_${server}_${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return name.length <= MODEL_TOOL_NAME_MAX ? name : undefined;
}
