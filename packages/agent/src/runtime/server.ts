// The agent's HTTP server in its two modes.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Assistant } from './assistant.js';
import type { AgentHost } from './host.js';
import { AgentError } from '../errors.js';
import { chatRoutes } from '../channels/api/chat-routes.js';
import { adminRoutes, type HostAgentOptions } from '../admin/routes.js';
import { agentNamed } from '../admin/scope.js';
import { hostSettingsRoutes, serveSettingsRoutes } from '../admin/settings-routes.js';
import { hostReminderRoutes, serveReminderRoutes } from '../admin/reminder-routes.js';
import { hostMcpRoutes, serveMcpRoutes } from '../admin/mcp-routes.js';
import { hostUpdateRoutes, serveUpdateRoutes } from '../admin/update-routes.js';
import { type ChannelDefaults, hostChannelRoutes, serveChannelRoutes } from '../admin/channel-routes.js';
import { hostTransferRoutes, serveTransferRoutes, type TransferTarget } from '../admin/transfer-routes.js';
import { installAgentErrors } from '../http/errors.js';
import { bearerMatches } from '@berth/contracts/bearer';
import { ProbeLogs } from '../http/probe-logs.js';
import { metricsRoute } from '../ops/metrics-route.js';
import { agentFamilies } from '../ops/agent-metrics.js';

/** A chat body with one image of IMAGE_MAX_BYTES as a data URL (base64: 4/3 of it) and its text. */
const BODY_LIMIT = 8 * 1024 * 1024;

// The agent's routes check their input with TypeBox in the handler, loaded on first use
// (admin/agent-config.ts, the chat-body check of @berth/contracts). Fastify would otherwise load
// Ajv and fast-json-stringify when the server is made (about 5 MB resident) for schemas no route
// declares; a route that declares one fails at start with this message.
const noRouteSchemas = () => {
  throw new Error('agent routes validate in their handlers with TypeBox; declare no Fastify route schema');
};

function base(logger: Logger): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    logController: new ProbeLogs(),
    bodyLimit: BODY_LIMIT,
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
  }) as unknown as FastifyInstance;
  installAgentErrors(app);
  // DELETE and GET callers often send a JSON content type with no body; that is not an error.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    if (!(body as string).trim()) return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new AgentError('INVALID_REQUEST', 'The request body is not valid JSON.'), undefined);
    }
  });
  return app;
}

/** serve: one agent at the root. */
export function serveApp(
  agent: Assistant,
  logger: Logger,
  keepaliveMs?: number,
  transfer?: TransferTarget,
  metricsToken?: string,
  channelDefaults: ChannelDefaults = {},
): FastifyInstance {
  const app = base(logger);
  metricsRoute(app, { metricsToken, families: () => agentFamilies(() => [agent.state]) });
  chatRoutes(app, '', () => agent, keepaliveMs);
  serveSettingsRoutes(app, agent);
  serveReminderRoutes(app, agent);
  serveMcpRoutes(app, agent);
  serveUpdateRoutes(app, agent);
  serveChannelRoutes(app, agent, channelDefaults);
  if (transfer) serveTransferRoutes(app, { config: agent.config, ...transfer });
  return app;
}

/** host: many agents under /agents/{name}, plus the admin API. */
export function hostApp(
  host: AgentHost,
  logger: Logger,
  adminToken: string,
  opts: HostAgentOptions & { keepaliveMs?: number; metricsToken?: string } = {},
): FastifyInstance {
  const app = base(logger);
  metricsRoute(app, {
    metricsToken: opts.metricsToken,
    adminToken,
    families: () => agentFamilies(() => host.states()),
  });
  chatRoutes(app, '/agents/:name', agentNamed(host), opts.keepaliveMs, adminToken);
  adminRoutes(app, host, adminToken, opts);
  hostSettingsRoutes(app, host, adminToken);
  hostReminderRoutes(app, host, adminToken);
  hostMcpRoutes(app, host, adminToken);
  hostUpdateRoutes(app, host, adminToken);
  hostChannelRoutes(app, host, adminToken, {
    whatsappApiRoot: opts.defaultWhatsAppApiRoot,
    discord: opts.defaultDiscord,
  });
  hostTransferRoutes(app, host, adminToken);
  // How many agents it holds is the operator's business only.
  app.get('/health', async (req) =>
    bearerMatches(req.headers.authorization, adminToken) ? { ok: true, agents: host.size } : { ok: true },
  );
  return app;
}
