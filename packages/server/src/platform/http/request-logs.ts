// Fastify logs two lines per request at info. On the read path they cost about a fifth of the
// CPU, so they are debug detail here; a failed request is still logged at its own level.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class DebugRequestLogs extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error || reply.statusCode >= 500) {
      super.requestCompleted(error, request, reply);
      return;
    }
    reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
