// Owner tools over MCP (DESIGN §9.2): what the control plane sends a worker about an assistant's
// MCP servers and what the worker reports back. The headers travel here in clear, between the
// control plane and the assistant's own worker only; they are sealed at rest and never in a view.
import { Type, type Static } from 'typebox';

/** A server's name as the owner gives it (it becomes part of the tools' names: mcp_<name>_<tool>). */
export const MCP_SERVER_NAME = '^[a-z0-9_-]{1,32}$';
/** Servers per assistant. */
export const MAX_MCP_SERVERS = 5;
/** Tools offered from all of an assistant's servers together. */
export const MAX_MCP_TOOLS = 128;

export const McpServerConfig = Type.Object(
  {
    name: Type.String({ pattern: MCP_SERVER_NAME }),
    url: Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://' }),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), Type.String({ maxLength: 4096 }), {
        maxProperties: 16,
      }),
    ),
    /** Absent: every tool the server lists; present: only these (the server's own tool names). */
    enabledTools: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 256 })),
  },
  { additionalProperties: false },
);
export type McpServerConfig = Static<typeof McpServerConfig>;

/** PUT …/mcp-servers on a worker: the assistant's whole list (an empty one removes them all). */
export const McpServerList = Type.Array(McpServerConfig, { maxItems: MAX_MCP_SERVERS });
export type McpServerList = Static<typeof McpServerList>;

export const MCP_STATUSES = ['connecting', 'connected', 'failed', 'disabled'] as const;
export type McpStatus = (typeof MCP_STATUSES)[number];

/** What a worker reports about one server: the owner's view, without the headers. */
export interface McpServerState {
  name: string;
  url: string;
  status: McpStatus;
  statusMessage: string | null;
  tools: Array<{ name: string; description: string; enabled: boolean }>;
  /** Tool calls made to it since the worker started, and how many of them failed or were errors. */
  calls: number;
  errors: number;
}
