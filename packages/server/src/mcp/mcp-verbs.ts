// The owner's verbs on an assistant's MCP servers (DESIGN §9.2): list, add or replace, remove.
// Each checks ownership first; a change is stored, then the whole list is pushed to the running
// worker (applied live), whose answer holds each server's status and tools. The control plane
// stores what the owner asked for; only the worker knows what a server answers (decision 0033).
import { MAX_MCP_SERVERS, MCP_SERVER_NAME, type McpServerState } from '@berth/contracts/mcp';
import { callbackUrlProblem } from '../domain/callback-url.js';
import { wantsWorker } from '../domain/lifecycle.js';
import type { Deployment } from '../domain/deployment.js';
import { AppError, notFound } from '../platform/errors/app-error.js';
import type { StoredMcpServer } from '../platform/store/mcp-servers.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from '../deployments/index.js';
import type { McpServerBody, McpServerView } from './schemas.js';
import { workerList } from './worker-list.js';

export type McpDeps = Pick<
  Services,
  'mcpServers' | 'deployments' | 'workers' | 'secrets' | 'log' | 'now' | 'mcpAllowInsecure'
>;

const NOT_RUNNING = 'The assistant is not running; its MCP servers connect when it runs.';

/** What the worker says about each server, by name; undefined when it could not be asked. */
type Reported = Map<string, McpServerState> | undefined;

function viewOf(row: StoredMcpServer, running: boolean, reported: Reported): McpServerView {
  const seen = reported?.get(row.name);
  const none = { calls: 0, errors: 0 };
  if (!running)
    return { name: row.name, url: row.url, status: 'disabled', statusMessage: NOT_RUNNING, tools: [], ...none };
  if (!seen || seen.url !== row.url)
    return {
      name: row.name,
      url: row.url,
      status: 'connecting',
      statusMessage: reported ? null : "The assistant's worker did not answer; the status shows once it does.",
      tools: [],
      ...none,
    };
  const { status, statusMessage, tools } = seen;
  // A worker older than these counts reports none.
  return {
    name: row.name,
    url: row.url,
    status,
    statusMessage,
    tools,
    calls: seen.calls ?? 0,
    errors: seen.errors ?? 0,
  };
}

function reportedOf(json: unknown): Reported {
  const servers = (json as { servers?: unknown } | undefined)?.servers;
  if (!Array.isArray(servers)) return undefined;
  return new Map((servers as McpServerState[]).map((s) => [s.name, s]));
}

/** The worker's list pushed whole; what it reports back, or undefined when it could not take it. */
async function push(s: McpDeps, d: Deployment, rows: StoredMcpServer[]): Promise<Reported> {
  if (!wantsWorker(d.desired)) return undefined;
  try {
    const res = await s.workers.assistantCall(d.workerName, 'PUT', '/mcp-servers', workerList(s.secrets, rows));
    return res.status === 200 ? reportedOf(res.json) : undefined;
  } catch (err) {
    // Stored either way: the worker's next start (its spec) carries the list.
    s.log.warn({ deploymentId: d.id, err: (err as Error).message }, 'pushing MCP servers to the worker failed');
    return undefined;
  }
}

async function ask(s: McpDeps, d: Deployment): Promise<Reported> {
  if (!wantsWorker(d.desired)) return undefined;
  try {
    const res = await s.workers.assistantCall(d.workerName, 'GET', '/mcp-servers');
    return res.status === 200 ? reportedOf(res.json) : undefined;
  } catch {
    return undefined;
  }
}

export async function listMcpServers(s: McpDeps, caller: Caller, id: string): Promise<McpServerView[]> {
  const d = await loadOwned(s, caller, id);
  const rows = await s.mcpServers.list(d.id);
  const reported = rows.length ? await ask(s, d) : undefined;
  return rows.map((r) => viewOf(r, wantsWorker(d.desired), reported));
}

export async function putMcpServer(
  s: McpDeps,
  caller: Caller,
  id: string,
  name: string,
  body: McpServerBody,
): Promise<McpServerView> {
  const d = await loadOwned(s, caller, id);
  if (!new RegExp(MCP_SERVER_NAME).test(name))
    throw new AppError(
      'INVALID_INPUT',
      `name must be 1 to 32 lower-case letters, digits, _ or - (${MCP_SERVER_NAME}).`,
    );
  const problem = callbackUrlProblem(body.url, { allowInsecure: s.mcpAllowInsecure === true }, 'url');
  if (problem) throw new AppError('INVALID_INPUT', problem);
  const repo = s.mcpServers;
  const before = (await repo.list(d.id)).find((r) => r.name === name);
  // Headers are write-only: a replace without them keeps the stored ones (the owner cannot read them back).
  const headersEnc = body.headers ? s.secrets.seal(JSON.stringify(body.headers)) : (before?.headersEnc ?? null);
  const stored = await repo.put(
    d.id,
    { name, url: body.url, headersEnc, enabledTools: body.enabledTools ?? null },
    MAX_MCP_SERVERS,
    s.now().toISOString(),
  );
  if (stored === 'gone') throw notFound();
  if (stored === 'full')
    throw new AppError(
      'QUOTA_EXCEEDED',
      `An assistant has at most ${MAX_MCP_SERVERS} MCP servers; remove one before adding "${name}".`,
      { max: MAX_MCP_SERVERS },
    );
  const rows = await repo.list(d.id);
  const reported = await push(s, d, rows);
  return viewOf(rows.find((r) => r.name === name)!, wantsWorker(d.desired), reported);
}

export async function removeMcpServer(s: McpDeps, caller: Caller, id: string, name: string): Promise<void> {
  const d = await loadOwned(s, caller, id);
  const repo = s.mcpServers;
  if (!(await repo.remove(d.id, name)))
    throw new AppError('NOT_FOUND', `This assistant has no MCP server named "${name}".`);
  await push(s, d, await repo.list(d.id));
}

/** The servers a new worker starts with (its spec), headers opened for it alone. */
export async function mcpServersForWorker(s: Pick<Services, 'mcpServers' | 'secrets'>, deploymentId: string) {
  return workerList(s.secrets, await s.mcpServers.list(deploymentId));
}

/** The same for a restoring pass's page, one read for all of them. */
export async function mcpServersForWorkers(
  s: Pick<Services, 'mcpServers' | 'secrets'>,
  deploymentIds: readonly string[],
) {
  const rows = deploymentIds.length ? await s.mcpServers.listOf(deploymentIds) : new Map();
  return new Map([...rows].map(([id, list]) => [id, workerList(s.secrets, list)]));
}
