// berth assistants mcp list|add|remove|tools (DESIGN §9.2): the owner's MCP servers of an
// assistant. A header (an API key, a bearer token) is write-only: from the flag or stdin ("-"),
// never printed.
import type { McpServer } from '../api/client.js';
import { UsageError } from '../config/env.js';
import { readSecrets } from '../input/secrets.js';
import { io } from '../io.js';
import { printJson, printTable } from '../output/print.js';
import type { Ctx } from './context.js';

const USAGE =
  'usage: berth assistants mcp list <id> | add <id> <name> --url <url> [--header "Name: value"|-] [--tools a,b] | remove <id> <name> | tools <id> <name>';

const short = (text: string | null, max = 60) => {
  const line = (text ?? '').split('\n')[0]!;
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
};

function headerOf(line: string): Record<string, string> {
  const at = line.indexOf(':');
  if (at < 1) throw new UsageError('--header takes "Name: value" (for example "Authorization: Bearer ...")');
  return { [line.slice(0, at).trim()]: line.slice(at + 1).trim() };
}

export async function mcpCommand(
  ctx: Ctx,
  args: string[],
  o: { url?: string; header?: string; tools?: string },
): Promise<number> {
  const [verb, id, name] = args;
  if (!id) throw new UsageError(USAGE);
  const client = ctx.client();
  if (verb === 'list' && args.length === 2) {
    const list: McpServer[] = await client.mcpServers(id);
    if (ctx.json) printJson(list);
    else if (!list.length) io().stdout.write('No MCP servers.\n');
    else
      printTable([
        ['NAME', 'STATUS', 'TOOLS', 'URL', 'MESSAGE'],
        ...list.map((s) => [
          s.name,
          s.status,
          `${s.tools.filter((t) => t.enabled).length}/${s.tools.length}`,
          s.url,
          short(s.statusMessage),
        ]),
      ]);
    return 0;
  }
  if (!name || args.length !== 3) throw new UsageError(USAGE);
  if (verb === 'add') {
    if (!o.url) throw new UsageError('berth assistants mcp add needs --url <url>');
    const [header] = await readSecrets([{ flag: '--header', value: o.header, required: false }]);
    const enabledTools = o.tools
      ?.split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const s = await client.putMcpServer(id, name, {
      url: o.url,
      ...(header ? { headers: headerOf(header) } : {}),
      ...(enabledTools ? { enabledTools } : {}),
    });
    if (ctx.json) printJson(s);
    else
      io().stdout.write(
        `${s.name}: ${s.status}${s.statusMessage ? ` (${s.statusMessage})` : ''}; ${s.tools.filter((t) => t.enabled).length} tools offered as mcp_${s.name}_<tool>.\n`,
      );
    return 0;
  }
  if (verb === 'remove') {
    const done = await client.removeMcpServer(id, name);
    if (ctx.json) printJson(done);
    else io().stdout.write(`Removed ${name}; its tools are gone from the next turn.\n`);
    return 0;
  }
  if (verb === 'tools') {
    const server = (await client.mcpServers(id)).find((s) => s.name === name);
    if (!server) throw new UsageError(`This assistant has no MCP server named "${name}".`);
    if (ctx.json) printJson(server.tools);
    else if (!server.tools.length)
      io().stdout.write(
        `${name} lists no tools (${server.status}${server.statusMessage ? `: ${server.statusMessage}` : ''}).\n`,
      );
    else
      printTable([
        ['TOOL', 'ENABLED', 'DESCRIPTION'],
        ...server.tools.map((t) => [t.name, t.enabled ? 'yes' : 'no', short(t.description)]),
      ]);
    return 0;
  }
  throw new UsageError(USAGE);
}
