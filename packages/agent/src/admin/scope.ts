// Where an assistant's routes stand and which assistant a request reaches, in the agent's two modes:
//   host mode:  under /agents/{name}, guarded by the host's admin token; a name the host does not
//               run is a 404 (a push never creates an assistant)
//   serve mode: at the root, guarded by the one assistant's gateway token (a dedicated worker has
//               no admin token, and only the control plane holds the gateway token)
import type { FastifyRequest } from 'fastify';
import { bearerMatches } from '@berth/contracts/bearer';
import { AgentError } from '../errors.js';

/** onRequest: the bearer must be `token()` (the host's admin token, or in serve mode the gateway token). */
export const guardWith = (token: () => string, what: string) => async (req: FastifyRequest) => {
  if (!bearerMatches(req.headers.authorization, token()))
    throw new AgentError('UNAUTHORIZED', `The ${what} is required.`);
};

/** The host's assistant a request's `:name` names, or a 404. */
export const agentNamed =
  <T>(host: { get(name: string): T | undefined }) =>
  (req: FastifyRequest): T => {
    const name = (req.params as { name: string }).name;
    const agent = host.get(name);
    if (!agent) throw new AgentError('NOT_FOUND', `No agent named "${name}".`);
    return agent;
  };

/** One mode's place for an assistant's routes. */
export interface AssistantScope<T> {
  /** '/agents/:name' on a host, '' in serve mode. */
  readonly prefix: string;
  readonly onRequest: (req: FastifyRequest) => Promise<void>;
  readonly assistant: (req: FastifyRequest) => T;
}

export const hostScope = <T>(host: { get(name: string): T | undefined }, adminToken: string): AssistantScope<T> => ({
  prefix: '/agents/:name',
  onRequest: guardWith(() => adminToken, 'host admin token'),
  assistant: agentNamed(host),
});

export const serveScope = <T extends { readonly config: { gatewayToken: string } }>(agent: T): AssistantScope<T> => ({
  prefix: '',
  onRequest: guardWith(() => agent.config.gatewayToken, 'gateway token'),
  assistant: () => agent,
});
