// One assistant's session with one MCP server (DESIGN §9.2): the official SDK client over
// Streamable HTTP, falling back to the older HTTP+SSE transport; the tool list read on connect and
// again on notifications/tools/list_changed; calls bounded to 30 s. A session belongs to one
// assistant: its own client, transport and sockets (guarded-fetch.ts), never another tenant's.
// Whatever goes wrong is this connection's status and message, or a tool error for the model.
import type { McpServerConfig, McpStatus } from '@berth/contracts/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { guardedFetch, ResponseTooLargeError, type GuardedFetch } from './guarded-fetch.js';
import type { McpNetworkPolicy } from './policy.js';
import { describeMcpError } from './errors.js';
import { MAX_DESCRIPTION_CHARS, schemaProblem } from './schema-guard.js';
import { modelToolName } from './names.js';

/** Per tool call (DESIGN §9.2). */
export const MCP_CALL_MS = 30_000;
/** Connecting and reading the tool list. */
export const MCP_CONNECT_MS = 15_000;
/** Pages of tools/list read at most (a server that pages forever). */
const MAX_LIST_PAGES = 10;
/** Tools kept from one server's list (the assistant's 128 are counted in servers.ts). */
const MAX_LISTED = 512;

export interface McpToolInfo {
  /** The server's own name for it. */
  name: string;
  /** mcp_<server>_<tool>. */
  modelName: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

// Berth never compiles a server's schemas: a JSON Schema bomb in an output schema would hold the
// host's event loop (every tenant's turns) while Ajv compiled it. Results are read as text anyway.
const acceptAll: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

export class McpConnection {
  status: McpStatus = 'connecting';
  statusMessage: string | null = null;
  /** Every tool the server listed that can be offered, in its order. */
  tools: McpToolInfo[] = [];
  /** Listed tools left out, and why (names the model API cannot take, oversized schemas). */
  private skipped: string[] = [];
  private client: Client | undefined;
  private net: GuardedFetch | undefined;
  private opening: Promise<void> | undefined;
  private closed = false;
  private readonly inFlight = new Set<AbortController>();

  constructor(
    readonly config: McpServerConfig,
    private readonly policy: McpNetworkPolicy,
    /** The tool list changed (connected, list_changed, failed): the assistant rebuilds its tools. */
    private readonly onChange: () => void,
    /** Per call; tests shorten it. */
    private readonly callMs = MCP_CALL_MS,
  ) {}

  /** Connects once; a later call after a failure tries again. */
  open(): Promise<void> {
    this.opening ??= this.connect().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async connect() {
    this.status = 'connecting';
    const url = new URL(this.config.url);
    const headers = this.config.headers ?? {};
    try {
      try {
        await this.start((o) => new StreamableHTTPClientTransport(url, o), headers);
      } catch (err) {
        if (!fallsBack(err) || this.closed) throw err;
        // A server of the 2024-11-05 protocol answers the POST with 404/405: the old HTTP+SSE.
        await this.start((o) => new SSEClientTransport(url, o), headers);
      }
      await this.refreshTools();
      if (this.closed) return this.close();
      this.status = 'connected';
      this.statusMessage = this.skipped.length ? `Some tools are not offered: ${this.skipped.join('; ')}` : null;
    } catch (err) {
      await this.dropClient();
      if (this.closed) return;
      this.status = 'failed';
      this.statusMessage = `Could not connect: ${describeMcpError(err)}`;
      this.tools = [];
    }
    this.onChange();
  }

  private async start(
    transportWith: (o: { fetch: never; requestInit: { headers: Record<string, string> } }) => Transport,
    headers: Record<string, string>,
  ) {
    await this.dropClient();
    // A flood cut off mid-answer: the SDK reports the broken stream without the request it
    // answered, so every call waiting on this server ends now rather than at its timeout.
    this.net = guardedFetch(this.policy, {
      onOversize: () => {
        for (const c of this.inFlight) c.abort(new ResponseTooLargeError(0));
      },
    });
    const transport = transportWith({ fetch: this.net.fetch as never, requestInit: { headers } });
    const client = new Client(
      { name: 'berth', version: '1.0.0' },
      {
        capabilities: {},
        jsonSchemaValidator: acceptAll,
        listChanged: {
          tools: {
            autoRefresh: false,
            debounceMs: 300,
            onChanged: () => void this.toolsChanged(),
          },
        },
      },
    );
    this.client = client;
    await client.connect(transport, { timeout: MCP_CONNECT_MS });
  }

  private async toolsChanged() {
    if (this.closed || !this.client) return;
    try {
      await this.refreshTools();
      this.statusMessage = this.skipped.length ? `Some tools are not offered: ${this.skipped.join('; ')}` : null;
    } catch (err) {
      this.statusMessage = `Could not read the changed tool list: ${describeMcpError(err)}`;
    }
    this.onChange();
  }

  private async refreshTools() {
    const client = this.client;
    if (!client) return;
    const tools: McpToolInfo[] = [];
    const skipped: string[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const res = await this.abortable((signal) =>
        client.listTools(cursor ? { cursor } : {}, { timeout: MCP_CONNECT_MS, signal }),
      );
      for (const t of res.tools) {
        if (tools.length + skipped.length >= MAX_LISTED) break;
        const shown = t.name.length > 40 ? `${t.name.slice(0, 40)}…` : t.name;
        const modelName = modelToolName(this.config.name, t.name);
        if (!modelName) skipped.push(`${shown} (name too long for the model's tool names)`);
        else if (seen.has(modelName)) skipped.push(`${shown} (same name as another tool once cleaned)`);
        else {
          const problem = schemaProblem(t.inputSchema);
          if (problem) skipped.push(`${shown} (${problem})`);
          else {
            seen.add(modelName);
            tools.push({
              name: t.name,
              modelName,
              description: (t.description ?? '').slice(0, MAX_DESCRIPTION_CHARS),
              inputSchema: t.inputSchema as Record<string, unknown>,
            });
          }
        }
      }
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    if (skipped.length > 5) skipped.splice(5, skipped.length - 5, `and ${skipped.length - 5} more`);
    this.tools = tools;
    this.skipped = skipped;
  }

  /** Calls one tool; throws what the model reads as the tool's error. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal) {
    if (this.status !== 'connected') await this.open();
    const client = this.client;
    if (!client || this.status !== 'connected') throw new Error(this.statusMessage ?? 'the server is not connected');
    try {
      return await this.abortable(
        (own) =>
          client.callTool({ name: tool, arguments: args }, undefined, {
            timeout: this.callMs,
            maxTotalTimeout: this.callMs,
            signal: own,
          }),
        signal,
      );
    } catch (err) {
      if (signal.aborted) throw err;
      this.statusMessage = `The last call of ${tool} failed: ${describeMcpError(err)}`;
      throw new Error(describeMcpError(err));
    }
  }

  /**
   * Runs one request that a cut-off answer (guarded-fetch.ts onOversize), the server's removal or
   * the turn's own signal ends at once; throws the reason it was ended for.
   */
  private async abortable<T>(fn: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
    const own = new AbortController();
    const onAbort = () => own.abort(outer?.reason);
    outer?.addEventListener('abort', onAbort, { once: true });
    this.inFlight.add(own);
    try {
      return await fn(own.signal);
    } catch (err) {
      throw own.signal.aborted && !outer?.aborted ? own.signal.reason : err;
    } finally {
      this.inFlight.delete(own);
      outer?.removeEventListener('abort', onAbort);
    }
  }

  private async dropClient() {
    const client = this.client;
    const net = this.net;
    this.client = undefined;
    this.net = undefined;
    await client?.close().catch(() => {});
    await net?.close().catch(() => {});
  }

  async close() {
    this.closed = true;
    for (const c of this.inFlight) c.abort(new Error('the server was removed'));
    await this.dropClient();
  }
}

/** Whether a failed Streamable HTTP start means "try the older HTTP+SSE transport". */
function fallsBack(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' && code >= 400 && code < 500 && code !== 401 && code !== 403;
}
