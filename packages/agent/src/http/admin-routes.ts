// The host's admin API: PUT /agents/{name} (create or replace), DELETE /agents/{name}, GET
// /agents. Guarded by the host's own admin token, never by an agent's gateway token.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { AgentError } from '../errors.js';
import type { AgentHost } from '../host.js';
import { bearerMatches } from './bearer.js';

export const AGENT_NAME = '^[a-z0-9][a-z0-9-]{0,62}$';

export const AgentConfigBody = Type.Object(
  {
    gatewayToken: Type.String({ minLength: 16, maxLength: 512 }),
    model: Type.Object(
      {
        provider: Type.String({ minLength: 1 }),
        baseUrl: Type.String({ pattern: '^https?://' }),
        modelId: Type.String({ minLength: 1 }),
        apiKey: Type.String({ minLength: 1 }),
      },
      { additionalProperties: false },
    ),
    telegram: Type.Optional(
      Type.Object(
        {
          botToken: Type.String({ minLength: 1 }),
          apiRoot: Type.Optional(Type.String({ pattern: '^https?://' })),
        },
        { additionalProperties: false },
      ),
    ),
    systemPrompt: Type.Optional(Type.String({ maxLength: 20_000 })),
    historyBudgetChars: Type.Optional(Type.Integer({ minimum: 1000, maximum: 2_000_000 })),
  },
  { additionalProperties: false },
);

type Params = { name: string };

export function adminRoutes(
  app: FastifyInstance,
  host: AgentHost,
  adminToken: string,
  opts: { allowPrivateFetch?: boolean; defaultTelegramApiRoot?: string } = {},
) {
  const guard = async (req: FastifyRequest) => {
    if (!bearerMatches(req.headers.authorization, adminToken))
      throw new AgentError('UNAUTHORIZED', 'The host admin token is required.');
  };
  const params = Type.Object({ name: Type.String({ pattern: AGENT_NAME }) });

  app.put<{ Params: Params; Body: Static<typeof AgentConfigBody> }>(
    '/agents/:name',
    { onRequest: guard, schema: { params, body: AgentConfigBody } },
    async (req) => {
      const body = req.body;
      const telegram = body.telegram && {
        botToken: body.telegram.botToken,
        apiRoot: body.telegram.apiRoot ?? opts.defaultTelegramApiRoot,
      };
      const agent = await host.put({
        name: req.params.name,
        ...body,
        telegram,
        allowPrivateFetch: opts.allowPrivateFetch,
      });
      return { name: agent.config.name, health: agent.health() };
    },
  );

  app.delete<{ Params: Params; Querystring: { purge?: string } }>(
    '/agents/:name',
    { onRequest: guard, schema: { params } },
    async (req) => {
      const removed = await host.remove(req.params.name, { purge: req.query.purge === 'true' });
      if (!removed) throw new AgentError('NOT_FOUND', `No agent named "${req.params.name}".`);
      return { removed: true };
    },
  );

  app.get('/agents', { onRequest: guard }, async () => ({
    agents: host.names().map((name) => host.get(name)!.health()),
  }));

  // What an operator (and bench:density) needs to judge the host: memory and event-loop delay.
  const RESOLUTION_MS = 5;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  app.addHook('onClose', async () => delay.disable());
  app.get('/stats', { onRequest: guard }, async (req) => {
    const mem = process.memoryUsage();
    // The histogram holds whole sampling intervals; lateness is what exceeds the interval.
    const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);
    const body = {
      agents: host.size,
      rss: mem.rss,
      heapUsed: mem.heapUsed,
      eventLoopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
    };
    if ((req.query as { reset?: string }).reset === 'true') delay.reset();
    return body;
  });
}
