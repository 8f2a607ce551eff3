// GET and DELETE /v1/sessions/{id}: an API session's stored messages, and forgetting it, for the
// playground's transcript after a reload. Only API sessions (the X-Assistant-Session-Id namespace):
// a Telegram chat stays private to its users.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ChatAgent } from './chat-agent.js';
import { AgentError } from '../../errors.js';

type Authed = (req: FastifyRequest) => ChatAgent;

async function sessionIdOf(req: FastifyRequest): Promise<string> {
  const { checkSessionId } = await import('@berth/contracts/chat/body');
  const checked = checkSessionId((req.params as { sessionId?: string }).sessionId);
  if (!checked.ok || !checked.id)
    throw new AgentError('INVALID_REQUEST', checked.ok ? 'A session id is required.' : checked.message);
  return checked.id;
}

export function sessionRoutes(app: FastifyInstance, prefix: string, authed: Authed) {
  app.get(`${prefix}/v1/sessions/:sessionId`, async (req) => {
    const agent = authed(req);
    const id = await sessionIdOf(req);
    const messages = agent.transcript(id);
    if (!messages.length) throw new AgentError('NOT_FOUND', 'No conversation is stored under this session id.');
    return { id, messages: messages.map((m) => ({ role: m.role, content: m.content })) };
  });

  app.delete(`${prefix}/v1/sessions/:sessionId`, async (req, reply) => {
    const agent = authed(req);
    if (!agent.forgetSession(await sessionIdOf(req)))
      throw new AgentError('NOT_FOUND', 'No conversation is stored under this session id.');
    return reply.status(204).send();
  });
}
