// An assistant's MCP servers (DESIGN §9.2), pushed whole by the control plane and read back with
// their status and tools (never their headers):
//   host mode:  PUT/GET /agents/{name}/mcp-servers   (the host's admin token)
//   serve mode: PUT/GET /mcp-servers                 (the assistant's gateway token)
// 404 for a name the host does not run: a push never creates an assistant.
import type { FastifyInstance } from 'fastify';
import type { McpServerConfig, McpServerState } from '@berth/contracts/mcp';
import { AgentError } from '../errors.js';
import { type AssistantScope, hostScope, serveScope } from './scope.js';

/** One running assistant as these routes need it (runtime/assistant.ts implements it). */
export interface McpTarget {
  readonly config: { name: string; gatewayToken: string };
  useMcpServers(list: McpServerConfig[]): Promise<void>;
  mcpView(): { servers: McpServerState[]; calls: { ok: number; failed: number } };
  mcpSettled(): Promise<void>;
}

/** How long a PUT waits for the servers to connect before it answers with what it has. */
const SETTLE_MS = 5_000;

/** A whole list as a PUT sends it, and as a dedicated pod's Secret keeps it (main.ts). */
export async function parseMcpServerList(body: unknown): Promise<McpServerConfig[]> {
  const [{ Compile }, { McpServerList }] = await Promise.all([
    import('typebox/compile'),
    import('@berth/contracts/mcp'),
  ]);
  if (!compiled) compiled = Compile(McpServerList);
  const check = compiled;
  if (check.Check(body)) {
    const list = body as McpServerConfig[];
    if (new Set(list.map((s) => s.name)).size !== list.length)
      throw new AgentError('INVALID_REQUEST', 'Two MCP servers have the same name.');
    return list;
  }
  const first = [...check.Errors(body)].slice(0, 3);
  throw new AgentError(
    'INVALID_REQUEST',
    `Invalid MCP server list: ${first.map((e) => `${e.instancePath || 'body'} ${e.message}`).join('; ')}`,
  );
}
let compiled: { Check(v: unknown): boolean; Errors(v: unknown): Iterable<{ instancePath: string; message: string }> };

async function settle(target: McpTarget) {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    target.mcpSettled(),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SETTLE_MS);
    }),
  ]);
  clearTimeout(timer);
}

function routes(app: FastifyInstance, { prefix, onRequest, assistant: target }: AssistantScope<McpTarget>) {
  app.put(`${prefix}/mcp-servers`, { onRequest }, async (req) => {
    const a = target(req);
    const list = await parseMcpServerList(req.body);
    await a.useMcpServers(list);
    await settle(a);
    return a.mcpView();
  });
  app.get(`${prefix}/mcp-servers`, { onRequest }, async (req) => target(req).mcpView());
}

export function hostMcpRoutes(
  app: FastifyInstance,
  host: { get(name: string): McpTarget | undefined },
  adminToken: string,
) {
  routes(app, hostScope(host, adminToken));
}

export function serveMcpRoutes(app: FastifyInstance, agent: McpTarget) {
  routes(app, serveScope(agent));
}
