import type { FastifyError, FastifyInstance } from 'fastify';
import { AgentError } from '../errors.js';

export function installAgentErrors(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    let e: AgentError;
    if (err instanceof AgentError) e = err;
    else if (err.validation) e = new AgentError('INVALID_REQUEST', `Invalid request: ${err.message}`);
    else if (err.statusCode && err.statusCode < 500)
      e = new AgentError(
        'INVALID_REQUEST',
        err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'Send application/json.'
          : 'The request body is not valid JSON.',
      );
    else {
      req.log.error({ err }, 'unhandled error');
      e = new AgentError('INTERNAL_ERROR', 'Internal error.');
    }
    if (e.headers) reply.headers(e.headers);
    return reply.status(e.status).send(e.toJSON());
  });
  app.setNotFoundHandler((req, reply) =>
    reply.status(404).send(new AgentError('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}.`).toJSON()),
  );
}
