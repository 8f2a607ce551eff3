// The MCP server endpoints' shapes (DESIGN §9.2). The headers are write-only: in a PUT's body,
// never in a view.
import { Type, type Static } from 'typebox';
import { Nullable } from '../platform/http/schemas/common.js';

export const McpServerParams = Type.Object({
  deploymentId: Type.String({ format: 'uuid', description: 'Deployment identifier' }),
  // Checked by the verb (mcp-verbs.ts), not here: a PUT's bad name is a 400 that says the rule,
  // where a malformed path parameter is a 404 everywhere else (platform/http/error-handler.ts).
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    description:
      "The server's name: lower-case letters, digits, _ and -, at most 32; its tools are offered as mcp_<name>_<tool>.",
  }),
});
export type McpServerParams = Static<typeof McpServerParams>;

export const McpServerBody = Type.Object(
  {
    url: Type.String({
      maxLength: 2048,
      description:
        "The server's Streamable HTTP (or older HTTP+SSE) endpoint: https and a public address (MCP_ALLOW_INSECURE=true allows http and private addresses for development).",
    }),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), Type.String({ maxLength: 4096 }), {
        maxProperties: 16,
        description:
          'Sent with every request to the server (an API key, a bearer token). Write-only: encrypted at rest, never shown again. Omitted on a replace: the stored headers stay.',
      }),
    ),
    enabledTools: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: 256,
        description: "The server's tools offered to the model, by the server's names; absent: every tool it lists.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type McpServerBody = Static<typeof McpServerBody>;

export const McpServerView = Type.Object(
  {
    name: Type.String(),
    url: Type.String(),
    status: Type.Union(
      [Type.Literal('connecting'), Type.Literal('connected'), Type.Literal('failed'), Type.Literal('disabled')],
      { description: 'disabled: the assistant is not running, so nothing connects.' },
    ),
    statusMessage: Nullable(Type.String({ description: 'What is wrong, in words the owner can act on.' })),
    tools: Type.Array(
      Type.Object(
        { name: Type.String(), description: Type.String(), enabled: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
    calls: Type.Integer({
      minimum: 0,
      description: "The model's calls of this server's tools since the assistant's worker last started.",
    }),
    errors: Type.Integer({ minimum: 0, description: 'Of those calls, the ones that failed or answered an error.' }),
  },
  { additionalProperties: false, $id: 'McpServer' },
);
export type McpServerView = Static<typeof McpServerView>;
