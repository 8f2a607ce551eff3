// The control plane polls each agent's /health while it deploys and lists a host's agents on every
// reconcile pass: at info those probes would bury everything else in the log. They are debug
// detail; every other request keeps Fastify's two info lines, and a failed probe still logs.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

const PROBE = /^\/(?:agents\/[^/?]+\/)?health(?:\?|$)|^\/agents(?:\?|$)|^\/stats(?:\?|$)/;

export class ProbeLogs extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (request.method === 'GET' && PROBE.test(request.url)) request.log.debug({ req: request }, 'incoming request');
    else super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error || reply.statusCode >= 500 || request.method !== 'GET' || !PROBE.test(request.url)) {
      super.requestCompleted(error, request, reply);
      return;
    }
    reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
