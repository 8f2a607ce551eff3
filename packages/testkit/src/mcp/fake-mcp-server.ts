// An MCP server built with the official SDK (its Server and Streamable HTTP transport) on loopback,
// for what the reference server cannot do: record every call with its session and headers (two
// tenants' sessions), change its tool list live, and misbehave (hang, flood, oversized lists,
// 10,000-character tool names, JSON Schema bombs, a protocol version nobody speaks).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { close, createServer, listen } from '../http.js';
import { makePng } from '../media-files.js';

export interface FakeMcpTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

export interface RecordedMcpCall {
  session: string;
  tool: string;
  arguments: Record<string, unknown>;
  authorization: string | undefined;
}

/** How the server misbehaves; 'none' by default. */
export type McpMisbehaviour = 'none' | 'wrong-protocol' | 'huge-list' | 'redirect';

const text = { type: 'object', properties: { text: { type: 'string' } } };

/** echo (says back `text`), hang (never answers), flood (10 MB of text), image (a PNG), fail (isError). */
export const DEFAULT_MCP_TOOLS: FakeMcpTool[] = [
  { name: 'echo', description: 'Says back the text it is given.', inputSchema: text },
  { name: 'hang', description: 'Never answers.', inputSchema: { type: 'object' } },
  { name: 'flood', description: 'Answers with 10 MB of text.', inputSchema: { type: 'object' } },
  { name: 'image', description: 'Answers with a small picture.', inputSchema: { type: 'object' } },
  { name: 'fail', description: 'Reports an error.', inputSchema: { type: 'object' } },
];

export class FakeMcpServer {
  readonly calls: RecordedMcpCall[] = [];
  /** Session ids the server made, in order. */
  readonly sessions: string[] = [];
  url = '';
  misbehaviour: McpMisbehaviour = 'none';
  /** Where a 'redirect' server sends its clients. */
  redirectTo = 'http://10.0.0.1/mcp';
  private tools: FakeMcpTool[];
  private readonly live = new Map<string, { server: Server; transport: StreamableHTTPServerTransport }>();
  private readonly hanging = new Set<() => void>();
  private readonly http = createServer((req, res) => void this.handle(req, res).catch(() => res.destroy()));

  constructor(tools: FakeMcpTool[] = DEFAULT_MCP_TOOLS) {
    this.tools = tools;
  }

  async start(): Promise<this> {
    this.url = `${await listen(this.http)}/mcp`;
    return this;
  }

  /** A new tool list; every open session is sent notifications/tools/list_changed. */
  async setTools(tools: FakeMcpTool[]) {
    this.tools = tools;
    await Promise.all([...this.live.values()].map((s) => s.server.sendToolListChanged().catch(() => {})));
  }

  async stop() {
    for (const release of this.hanging) release();
    await Promise.all([...this.live.values()].map((s) => s.transport.close().catch(() => {})));
    await close(this.http);
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    if (this.misbehaviour === 'redirect') {
      res.writeHead(307, { location: this.redirectTo }).end();
      return;
    }
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? this.live.get(id) : undefined;
    if (known) return known.transport.handleRequest(req, res);
    if (req.method !== 'POST' || id) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      return;
    }
    const server = this.makeServer(() => req.headers.authorization);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        this.sessions.push(sid);
        this.live.set(sid, { server, transport });
      },
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  private makeServer(authorization: () => string | string[] | undefined): Server {
    const server = new Server(
      { name: 'berth-fake-mcp', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    if (this.misbehaviour === 'wrong-protocol')
      server.setRequestHandler(InitializeRequestSchema, async () => ({
        protocolVersion: '1999-01-01',
        capabilities: { tools: {} },
        serverInfo: { name: 'berth-fake-mcp', version: '0.0.1' },
      }));
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      if (this.misbehaviour === 'huge-list') {
        // 5,000 tools of 10 KB each: a 50 MB list.
        const description = 'x'.repeat(10_000);
        return {
          tools: Array.from({ length: 5_000 }, (_, i) => ({
            name: `t${i}`,
            description,
            inputSchema: { type: 'object' as const },
          })),
        };
      }
      return {
        tools: this.tools.map((t) => ({
          name: t.name,
          description: t.description,
          inputSchema: (t.inputSchema ?? { type: 'object' }) as { type: 'object' },
        })),
      };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const auth = authorization();
      this.calls.push({
        session: extra.sessionId ?? '',
        tool: request.params.name,
        arguments: args,
        authorization: Array.isArray(auth) ? auth[0] : auth,
      });
      switch (request.params.name) {
        case 'hang':
          await new Promise<void>((resolve) => {
            this.hanging.add(resolve);
            extra.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          return { content: [{ type: 'text', text: 'too late' }] };
        case 'flood':
          return { content: [{ type: 'text', text: 'y'.repeat(10 * 1024 * 1024) }] };
        case 'image':
          return {
            content: [
              { type: 'text', text: 'Here is the picture.' },
              { type: 'image', data: makePng(2, 2).toString('base64'), mimeType: 'image/png' },
            ],
          };
        case 'fail':
          return { content: [{ type: 'text', text: 'The ticket system is down.' }], isError: true };
        default:
          return { content: [{ type: 'text', text: `echo: ${String(args.text ?? '')}` }] };
      }
    });
    return server;
  }
}
