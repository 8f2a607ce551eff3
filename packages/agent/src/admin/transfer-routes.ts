// Moving an assistant to another host or pod with its users' data (0024, "Moving an assistant"):
//   host mode:  POST /agents/{name}/handover, PUT /agents/{name}/user-data   (host admin token)
//   serve mode: POST /handover,               PUT /user-data                 (gateway token)
// handover stops the assistant here (no more polling, no more claims) and answers its export;
// asked again it answers the same export. user-data takes an export in, once per export id.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AgentError } from '../errors.js';
import { checkExport, type UserDataExport } from '../storage/transfer.js';
import { guardWith } from './scope.js';

/** What these routes need of the host (runtime/host.ts) or the one served assistant (main.ts). */
export interface TransferTarget {
  handover(name: string): Promise<UserDataExport>;
  importUserData(name: string, data: UserDataExport): Promise<boolean>;
}

// An export carries an assistant's conversations and index: larger than a chat body may be.
const EXPORT_BODY_LIMIT = 256 * 1024 * 1024;

function routes(
  app: FastifyInstance,
  prefix: string,
  onRequest: (req: FastifyRequest) => Promise<void>,
  target: TransferTarget,
  nameOf: (req: FastifyRequest) => string | Promise<string>,
) {
  app.post(`${prefix}/handover`, { onRequest }, async (req) => target.handover(await nameOf(req)));
  app.put(`${prefix}/user-data`, { onRequest, bodyLimit: EXPORT_BODY_LIMIT }, async (req) => {
    const bad = checkExport(req.body);
    if (bad) throw new AgentError('INVALID_REQUEST', `Invalid export: ${bad}`);
    const imported = await target.importUserData(await nameOf(req), req.body as UserDataExport);
    return { imported, id: (req.body as UserDataExport).id };
  });
}

export function hostTransferRoutes(app: FastifyInstance, host: TransferTarget, adminToken: string) {
  routes(
    app,
    '/agents/:name',
    guardWith(() => adminToken, 'host admin token'),
    host,
    async (req) => {
      const bad = (await import('./agent-config.js')).checkAgentName(req.params);
      if (bad) throw new AgentError('INVALID_REQUEST', `Invalid request: ${bad}`);
      return (req.params as { name: string }).name;
    },
  );
}

export function serveTransferRoutes(
  app: FastifyInstance,
  agent: TransferTarget & { config: { name: string; gatewayToken: string } },
) {
  routes(
    app,
    '',
    guardWith(() => agent.config.gatewayToken, 'gateway token'),
    agent,
    () => agent.config.name,
  );
}
