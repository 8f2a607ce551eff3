// An assistant's MCP servers (DESIGN §9.2): their connections, kept across a new list when a
// server's address and headers did not change, and the tools they offer the model. At most 5
// servers and 128 tools; each call counted for the assistant (its view) and the host (metrics).
import { MAX_MCP_TOOLS, type McpServerConfig, type McpServerState } from '@berth/contracts/mcp';
import { counters } from '../../ops/counters.js';
import { ToolFailure, type AnyTool } from '../tool.js';
import { McpConnection } from './connection.js';
import type { McpNetworkPolicy } from './policy.js';
import { toToolOutput, type McpCallResult } from './result.js';

const sameConnection = (a: McpServerConfig, b: McpServerConfig) =>
  a.url === b.url && JSON.stringify(a.headers ?? {}) === JSON.stringify(b.headers ?? {});

export class McpServers {
  private readonly connections = new Map<string, McpConnection>();
  private offered: AnyTool[] = [];
  private closed = false;
  /** Calls made for this assistant, by outcome (the owner's view). */
  readonly calls = { ok: 0, failed: 0 };
  /** The same per server, by name, since this worker started (a removed server's go with it). */
  private readonly perServer = new Map<string, { calls: number; errors: number }>();

  constructor(
    private readonly o: {
      policy: McpNetworkPolicy;
      /** The model reads images: results' images are passed on. */
      vision: () => boolean;
      /** Names of the built-in tools: an MCP tool never takes one. */
      reserved: () => ReadonlySet<string>;
      /** The tools changed (a server connected, listed anew, failed or went). */
      onChange?: () => void;
      /** Per call (30 s); tests shorten it. */
      callMs?: number;
    },
  ) {}

  /** The assistant's whole list: new servers connect, changed ones reconnect, missing ones close. */
  async apply(list: readonly McpServerConfig[]) {
    const wanted = new Map(list.map((c) => [c.name, c]));
    for (const name of this.perServer.keys()) if (!wanted.has(name)) this.perServer.delete(name);
    const closing: Promise<void>[] = [];
    for (const [name, conn] of this.connections)
      if (!wanted.has(name) || !sameConnection(conn.config, wanted.get(name)!)) {
        this.connections.delete(name);
        closing.push(conn.close());
      }
    for (const config of list) {
      const kept = this.connections.get(config.name);
      if (kept) {
        // Only which tools are enabled changed: same session.
        (kept as { config: McpServerConfig }).config = config;
        continue;
      }
      const conn = new McpConnection(config, this.o.policy, () => this.rebuild(), this.o.callMs);
      this.connections.set(config.name, conn);
      void conn.open();
    }
    this.rebuild();
    await Promise.all(closing);
  }

  /** Resolves once every server has connected or failed (tests, and the first apply's view). */
  async settled() {
    await Promise.all([...this.connections.values()].map((c) => c.open()));
  }

  get tools(): AnyTool[] {
    return this.offered;
  }

  states(): McpServerState[] {
    const offered = new Set(this.offered.map((t) => t.name));
    return [...this.connections.values()].map((c) => ({
      name: c.config.name,
      url: c.config.url,
      status: c.status,
      statusMessage: c.statusMessage,
      tools: c.tools.map((t) => ({ name: t.name, description: t.description, enabled: offered.has(t.modelName) })),
      ...(this.perServer.get(c.config.name) ?? { calls: 0, errors: 0 }),
    }));
  }

  private rebuild() {
    if (this.closed) return;
    const reserved = this.o.reserved();
    const tools: AnyTool[] = [];
    for (const conn of this.connections.values()) {
      if (conn.status !== 'connected') continue;
      const enabled = conn.config.enabledTools && new Set(conn.config.enabledTools);
      for (const t of conn.tools) {
        if (tools.length >= MAX_MCP_TOOLS) break;
        if (enabled && !enabled.has(t.name)) continue;
        if (reserved.has(t.modelName)) continue;
        tools.push(this.toolFor(conn, t.name, t.modelName, t.description, t.inputSchema));
      }
    }
    this.offered = tools;
    this.o.onChange?.();
  }

  private toolFor(
    conn: McpConnection,
    tool: string,
    modelName: string,
    description: string,
    parameters: Record<string, unknown>,
  ): AnyTool {
    const server = conn.config.name;
    return {
      name: modelName,
      emoji: '🧩',
      description: description || `The tool ${tool} of the owner's MCP server ${server}.`,
      parameters,
      label: () => `Using ${tool.slice(0, 40)} (${server})`,
      run: async (args, signal) => {
        let result: McpCallResult;
        try {
          result = (await conn.call(tool, args, signal)) as McpCallResult;
        } catch (err) {
          if (signal.aborted) throw err;
          this.count(server, false);
          throw new ToolFailure(`The MCP server ${server} failed: ${(err as Error).message}`);
        }
        this.count(server, result.isError !== true);
        return toToolOutput(result, this.o.vision());
      },
    };
  }

  /** A call that failed or whose result is an error counts in `errors` too. */
  private count(server: string, ok: boolean) {
    const mine = this.perServer.get(server) ?? { calls: 0, errors: 0 };
    mine.calls++;
    if (!ok) mine.errors++;
    this.perServer.set(server, mine);
    if (ok) this.calls.ok++;
    else this.calls.failed++;
    counters.mcpCalls[ok ? 'ok' : 'failed']++;
  }

  async close() {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    this.offered = [];
    await Promise.all(all.map((c) => c.close()));
  }
}
