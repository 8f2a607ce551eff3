// An assistant's MCP servers (DESIGN §9.2), beside the spec's paths. Parse (schema), call one
// verb, shape the envelope.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ErrorCode } from '../platform/errors/codes.js';
import { ASSISTANT_READ_ERRORS, assistantRoute, dataRoute } from '../platform/http/define-route.js';
import type { Services } from '../services.js';
import { McpServerBody, McpServerParams, McpServerView } from './schemas.js';
import { listMcpServers, putMcpServer, removeMcpServer } from './mcp-verbs.js';

const tags = ['Assistants'];
const WRITE_ERRORS = [...ASSISTANT_READ_ERRORS, 'INVALID_REQUEST', 'INVALID_INPUT'] satisfies ErrorCode[];
const View = Type.Ref('McpServer');

export function mcpRoutes(app: FastifyInstance, s: Services) {
  app.addSchema(McpServerView);
  const base = '/api/v1/assistants/:deploymentId/mcp-servers';

  assistantRoute(
    app,
    tags,
    {
      method: 'GET',
      url: base,
      operationId: 'listAssistantMcpServers',
      summary: 'List MCP servers',
      description:
        "The owner's MCP servers of this assistant with their status and the tools they offer (never their headers). A server of an assistant that is not running is disabled.",
      data: Type.Array(View),
      answer: 'The servers, in name order.',
      errors: ASSISTANT_READ_ERRORS,
    },
    (req) => listMcpServers(s, req, req.params.deploymentId),
  );

  dataRoute<{ Params: McpServerParams; Body: McpServerBody }>(
    app,
    {
      method: 'PUT',
      url: `${base}/:name`,
      operationId: 'putAssistantMcpServer',
      summary: 'Add or replace an MCP server',
      description:
        'Stores the server (at most 5 per assistant) and, on a running assistant, connects to it within seconds: its tools are offered to the model as mcp_<name>_<tool> on the next turn. The headers are encrypted at rest and never shown again; a replace without headers keeps the stored ones.',
      tags,
      auth: 'apiKey',
      params: McpServerParams,
      body: McpServerBody,
      data: View,
      answer: 'The server as the assistant sees it now.',
      errors: [...WRITE_ERRORS, 'QUOTA_EXCEEDED'],
    },
    (req) => putMcpServer(s, req, req.params.deploymentId, req.params.name, req.body),
  );

  dataRoute<{ Params: McpServerParams }>(
    app,
    {
      method: 'DELETE',
      url: `${base}/:name`,
      operationId: 'deleteAssistantMcpServer',
      summary: 'Remove an MCP server',
      description: 'Its tools leave the assistant before its next turn; its stored headers are deleted.',
      tags,
      auth: 'apiKey',
      params: McpServerParams,
      data: Type.Object({ success: Type.Boolean() }, { additionalProperties: false }),
      answer: 'Removed.',
      errors: ASSISTANT_READ_ERRORS,
    },
    async (req) => {
      await removeMcpServer(s, req, req.params.deploymentId, req.params.name);
      return { success: true };
    },
  );
}
