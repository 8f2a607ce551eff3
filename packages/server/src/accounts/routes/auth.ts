// Sign-up, sign-in and the browser session (docs/decisions/0019). The session token lives only in
// an HttpOnly cookie; the body carries the CSRF token the dashboard echoes on writes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { operationSchema } from '../../platform/http/define-route.js';
import { SESSION_COOKIE } from '../../platform/http/auth.js';
import { DataEnvelope } from '../../platform/http/schemas/common.js';
import { CallbackSecretView, LoginBody, PasswordBody, SessionView, SignedIn, SignupBody } from '../schemas/accounts.js';
import type { Services } from '../../services.js';
import { changePassword, publicUser, signIn, signUp } from '../credentials.js';
import { csrfFor, SESSION_TTL_MS } from '../sessions.js';
import { callbackSecret } from '../callback-secret.js';

const tags = ['Auth'];
const NoContent = Type.Null();

export function authRoutes(app: FastifyInstance, s: Services) {
  const secure = s.accounts.publicBaseUrl.startsWith('https:');
  const setSession = (reply: FastifyReply, token: string) =>
    reply.setCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure,
      maxAge: SESSION_TTL_MS / 1000,
    });
  const clearSession = (reply: FastifyReply) =>
    reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure });

  app.post<{ Body: Static<typeof SignupBody> }>(
    '/api/auth/signup',
    operationSchema({
      operationId: 'signUp',
      summary: 'Sign up',
      tags,
      auth: 'public',
      description:
        'Creates an account and signs it in (Set-Cookie berth_session). With SIGNUP=closed an invitation made for this email is required.',
      body: SignupBody,
      success: { status: 201, schema: DataEnvelope(SignedIn), description: 'Signed up and signed in.' },
      errors: ['INVALID_REQUEST', 'INVALID_INPUT', 'SIGNUP_CLOSED', 'CONFLICT', 'INTERNAL_ERROR'],
    }),
    async (req, reply) => {
      const r = await signUp(s, req.body, req.ip);
      setSession(reply, r.token);
      return reply.status(201).send({ data: { user: r.user, csrfToken: r.csrfToken } });
    },
  );

  app.post<{ Body: Static<typeof LoginBody> }>(
    '/api/auth/login',
    operationSchema({
      operationId: 'signIn',
      summary: 'Sign in',
      tags,
      auth: 'public',
      description:
        'Signs in with email and password (Set-Cookie berth_session). Attempts are limited per email and per client address.',
      body: LoginBody,
      success: { status: 200, schema: DataEnvelope(SignedIn), description: 'Signed in.' },
      errors: ['INVALID_REQUEST', 'UNAUTHORIZED', 'INTERNAL_ERROR'],
    }),
    async (req, reply) => {
      const r = await signIn(s, req.body, req.ip);
      setSession(reply, r.token);
      return { data: { user: r.user, csrfToken: r.csrfToken } };
    },
  );

  app.get(
    '/api/auth/session',
    operationSchema({
      operationId: 'getSession',
      summary: 'Get the session',
      tags,
      auth: 'session',
      success: {
        status: 200,
        schema: DataEnvelope(SessionView),
        description: 'The signed-in user, its organizations and the CSRF token.',
      },
      errors: ['UNAUTHORIZED', 'INTERNAL_ERROR'],
    }),
    async (req, reply) => {
      const orgs = await s.accounts.organizations.listFor(req.userId);
      const user = await s.users.findById(req.userId);
      const token = req.cookies[SESSION_COOKIE]!;
      // The browser's copy of the cookie slides with the session's expiry.
      setSession(reply, token);
      return {
        data: {
          user: publicUser(user!),
          organizations: orgs.map((o) => ({ id: o.id, name: o.name, role: o.role })),
          csrfToken: csrfFor(token),
        },
      };
    },
  );

  // Signing out of this session or of every one of the user's: the same answers, and the cookie goes.
  const signOut = (
    path: string,
    op: { operationId: string; summary: string; ended: string },
    end: (req: FastifyRequest) => Promise<unknown>,
  ) =>
    app.post(
      path,
      operationSchema({
        operationId: op.operationId,
        summary: op.summary,
        tags,
        auth: 'session',
        success: { status: 204, schema: NoContent, description: op.ended },
        errors: ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_REQUEST', 'INTERNAL_ERROR'],
      }),
      async (req, reply) => {
        await end(req);
        clearSession(reply);
        return reply.status(204).send();
      },
    );
  signOut(
    '/api/auth/logout',
    { operationId: 'signOut', summary: 'Sign out', ended: 'This session has ended.' },
    (req) => s.accounts.sessions.delete(req.sessionId!),
  );
  signOut(
    '/api/auth/logout-all',
    { operationId: 'signOutEverywhere', summary: 'Sign out everywhere', ended: 'Every session of the user has ended.' },
    (req) => s.accounts.sessions.deleteAllOf(req.userId),
  );

  app.post<{ Body: Static<typeof PasswordBody> }>(
    '/api/auth/password',
    operationSchema({
      operationId: 'changePassword',
      summary: 'Change the password',
      tags,
      auth: 'session',
      description:
        'Needs the current password; every other session of the user ends. With revokeKeys: true, every API key the user made is revoked too.',
      body: PasswordBody,
      success: { status: 204, schema: NoContent, description: 'Password changed.' },
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_REQUEST', 'INTERNAL_ERROR'],
    }),
    async (req, reply) => {
      const who = { userId: req.userId, email: req.sessionEmail!, sessionId: req.sessionId! };
      await changePassword(s, who, req.body, req.ip);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/auth/callback-secret',
    operationSchema({
      operationId: 'getCallbackSecret',
      summary: 'Get the callback secret',
      tags,
      auth: 'apiKey',
      description:
        "The caller's Standard Webhooks secret: the status callbacks of the user's personal deployments are signed with it (an organization's deployments with the organization's own secret: GET /api/organizations/{id}/callback-secret). Signed in or with a personal key; an organization's key is refused (403), the secret being a person's.",
      success: {
        status: 200,
        schema: DataEnvelope(CallbackSecretView),
        description: 'The secret; never cached (Cache-Control: no-store).',
        headers: { 'Cache-Control': Type.Literal('no-store') },
      },
      errors: ['UNAUTHORIZED', 'FORBIDDEN', 'INTERNAL_ERROR'],
    }),
    async (req, reply) => {
      const data = await callbackSecret(s, req);
      return reply.header('cache-control', 'no-store').send({ data });
    },
  );
}
