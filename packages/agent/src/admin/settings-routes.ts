// Settings of a running assistant (DESIGN §7.1), pushed by the control plane:
//   host mode:  PUT /agents/{name}/settings   (the host's admin token)
//   serve mode: PUT /settings                 (the assistant's gateway token; see scope.ts)
// 404 for a name the host does not run: a push never creates an assistant.
import type { FastifyInstance } from 'fastify';
import { AgentError } from '../errors.js';
import { type AssistantScope, hostScope, serveScope } from './scope.js';
import type { AssistantSettings } from '@berth/contracts/settings';
import type { AccessStore } from '../storage/access.js';

/** One running assistant as these routes need it (runtime/assistant.ts implements it). */
export interface SettingsTarget {
  readonly config: { name: string; gatewayToken: string };
  readonly access: AccessStore;
  /** Swaps the document in place (runtime/assistant.ts): the channel keeps polling. */
  useSettings(settings: AssistantSettings): void;
}

/** The host's assistants, by name (runtime/host.ts implements it). */
export interface SettingsDirectory {
  get(name: string): SettingsTarget | undefined;
  applySettings(name: string, settings: AssistantSettings): Promise<boolean>;
}

/**
 * The document when it is valid settings, else a 400 naming the first problems. The schema loads
 * with the first push: an empty host carries no TypeBox (test/start-up.test.ts).
 */
async function parseSettings(body: unknown): Promise<AssistantSettings> {
  const { checkSettings } = await import('@berth/contracts/settings');
  const checked = checkSettings(body);
  if (!checked.ok) throw new AgentError('INVALID_REQUEST', `Invalid settings: ${checked.message}`);
  return checked.settings;
}

type Params = { name: string };
type CodeParams = { name: string; code: string };

/** Pending pairing codes of one assistant (settings.access.mode "pairing"), for the control plane. */
function pairingRoutes(app: FastifyInstance, { prefix, onRequest, assistant }: AssistantScope<SettingsTarget>) {
  app.get(`${prefix}/pairings`, { onRequest }, async (req) => {
    const a = assistant(req);
    return { data: a.access.pending(a.config.name, Date.now()) };
  });
  app.get<{ Params: CodeParams }>(`${prefix}/pairings/:code`, { onRequest }, async (req) => {
    const a = assistant(req);
    const found = a.access.find(a.config.name, req.params.code, Date.now());
    if (found === 'expired')
      throw new AgentError('NOT_FOUND', `Pairing code ${req.params.code} has expired; ask the person for a new one.`);
    if (!found) throw new AgentError('NOT_FOUND', `No pending pairing code ${req.params.code}.`);
    return { data: found };
  });
  app.delete<{ Params: CodeParams }>(`${prefix}/pairings/:code`, { onRequest }, async (req) => {
    const a = assistant(req);
    if (!a.access.remove(a.config.name, req.params.code))
      throw new AgentError('NOT_FOUND', `No pending pairing code ${req.params.code}.`);
    return { removed: true };
  });
}

export function hostSettingsRoutes(app: FastifyInstance, host: SettingsDirectory, adminToken: string) {
  const scope = hostScope(host, adminToken);
  app.put<{ Params: Params }>('/agents/:name/settings', { onRequest: scope.onRequest }, async (req) => {
    const settings = await parseSettings(req.body);
    if (!(await host.applySettings(req.params.name, settings)))
      throw new AgentError('NOT_FOUND', `No agent named "${req.params.name}".`);
    return { applied: true };
  });
  pairingRoutes(app, scope);
}

export function serveSettingsRoutes(app: FastifyInstance, agent: SettingsTarget) {
  const scope = serveScope(agent);
  app.put('/settings', { onRequest: scope.onRequest }, async (req) => {
    agent.useSettings(await parseSettings(req.body));
    return { applied: true };
  });
  pairingRoutes(app, scope);
}
