// A forgotten password (docs/decisions/0028): ask for a link (mailed when SMTP_URL is set), then
// set a new password with the link's token. Both are public; the first never says whether an
// account exists.
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { dataRoute, operationSchema } from '../../platform/http/define-route.js';
import { ResetCompleteBody, ResetRequestBody, ResetRequested } from '../schemas/password-reset.js';
import type { Services } from '../../services.js';
import { completeReset, requestReset } from '../password-reset.js';

const tags = ['Auth'];

export function passwordResetRoutes(app: FastifyInstance, s: Services) {
  const deps = {
    users: s.users,
    limits: s.limits,
    now: s.now,
    resets: s.accounts.resets,
    sessions: s.accounts.sessions,
    mailer: s.accounts.mailer,
    publicBaseUrl: s.accounts.publicBaseUrl,
  };

  dataRoute<{ Body: Static<typeof ResetRequestBody> }>(
    app,
    {
      method: 'POST',
      url: '/api/auth/password-reset',
      operationId: 'requestPasswordReset',
      summary: 'Ask for a password reset link',
      tags,
      auth: 'public',
      description:
        'Mails a one-time link (valid an hour) to the account with this email, when the server sends mail. The answer is the same whether or not the email has an account.',
      body: ResetRequestBody,
      data: ResetRequested,
      answer: 'Accepted.',
      status: 202,
      errors: ['INVALID_REQUEST', 'INVALID_INPUT', 'RATE_LIMITED', 'INTERNAL_ERROR'],
    },
    (req) => requestReset(deps, req.body.email, req.ip),
  );

  app.post<{ Body: Static<typeof ResetCompleteBody> }>(
    '/api/auth/password-reset/complete',
    operationSchema({
      operationId: 'completePasswordReset',
      summary: 'Set a new password with a reset link',
      tags,
      auth: 'public',
      description: 'Uses the link once; every session of the account ends. Sign in with the new password.',
      body: ResetCompleteBody,
      success: { status: 204, schema: Type.Null(), description: 'The new password is set.' },
      errors: ['INVALID_REQUEST', 'INVALID_INPUT', 'INTERNAL_ERROR'],
    }),
    async (req, reply) => {
      await completeReset(deps, req.body.token, req.body.password);
      return reply.status(204).send();
    },
  );
}
