// Who is calling, decided by the auth mode of the route the router matched (never by the URL).
// Endpoints 1-9 take X-API-Key; the chat and model endpoints also take "Authorization: Bearer",
// so stock OpenAI clients work unchanged. Every API route also takes the dashboard's session
// cookie, with the CSRF header on writes (docs/decisions/0019).
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { fastifyCookie } from '@fastify/cookie';
import { bearerToken } from '@berth/contracts/bearer';
import { AppError } from '../platform/errors/app-error.js';
import { type AuthMode, CSRF_HEADER, ORGANIZATION_HEADER, SESSION_COOKIE } from '../platform/http/auth.js';
import type { Services } from '../services.js';
import { authenticate, cachedKeyOwner, type KeyOwner } from './authenticate.js';
import { csrfMatches, resolveSession } from './sessions.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The API key a request's headers carry in a form the mode takes, if any. */
export function apiKeyIn(headers: IncomingHttpHeaders, mode: AuthMode): string | undefined {
  if (mode === 'session' || mode === 'public') return undefined;
  const v = headers['x-api-key'];
  const apiKey = Array.isArray(v) ? v[0] : v;
  if (apiKey) return apiKey;
  const authz = headers.authorization;
  if (mode === 'apiKeyOrBearer' && authz) return bearerToken(authz);
  return undefined;
}

const keyOf = (req: FastifyRequest, mode: AuthMode) => apiKeyIn(req.headers, mode);

function missing(req: FastifyRequest, mode: AuthMode): AppError {
  if (mode === 'session') return new AppError('UNAUTHORIZED', 'Sign in first: this needs a browser session.');
  if (mode === 'apiKeyOrBearer')
    return new AppError(
      'UNAUTHORIZED',
      'An API key is required: send it as "X-API-Key: <key>" or "Authorization: Bearer <key>".',
    );
  return new AppError(
    'UNAUTHORIZED',
    req.headers.authorization
      ? 'This endpoint takes the API key in the X-API-Key header, not in Authorization.'
      : 'An API key is required: send it in the X-API-Key header.',
  );
}

function actAs(req: FastifyRequest, owner: KeyOwner, asOrganization: string | undefined) {
  // A key acts for whom it belongs to; asking it to act for someone else is a mistake to show.
  if (asOrganization !== undefined && asOrganization !== owner.organizationId)
    throw new AppError(
      'INVALID_REQUEST',
      `${ORGANIZATION_HEADER} is for browser sessions; an API key acts for the user or organization it belongs to.`,
    );
  req.userId = owner.userId;
  req.organizationId = owner.organizationId;
  req.keyId = owner.keyId;
  req.apiKeyId = owner.keyId;
}

/**
 * identify() without a promise, for the requests it can answer from memory: a public route, or a
 * key the cache knows (every API call but a key's first in the cache's lifetime). True when the
 * caller is set (or it threw as identify() would); false when identify() must run.
 */
export function identifyFromCache(s: Pick<Services, 'cache'>, req: FastifyRequest, mode: AuthMode): boolean {
  req.organizationId = null;
  req.keyId = null;
  if (mode === 'public') return true;
  const key = keyOf(req, mode);
  const owner = key === undefined ? undefined : cachedKeyOwner(s, key);
  if (!owner) return false;
  actAs(req, owner, header(req, ORGANIZATION_HEADER));
  return true;
}

/** Sets the caller on the request (userId, organizationId, keyId) or throws. */
export async function identify(s: Services, req: FastifyRequest, mode: AuthMode): Promise<void> {
  req.organizationId = null;
  req.keyId = null;
  if (mode === 'public') return;
  const asOrganization = header(req, ORGANIZATION_HEADER);
  const key = keyOf(req, mode);
  if (key !== undefined) {
    const owner = await authenticate(s, key);
    if (!owner) throw new AppError('UNAUTHORIZED', 'The API key is invalid or revoked.');
    actAs(req, owner, asOrganization);
    return;
  }
  // Parsed here, not by a hook on every request: API-key calls never read a cookie.
  // The plugin's own parse, not its decorator: the plugin is registered only around the routes that
  // set the cookie (app.ts), a session is read on every route.
  req.cookies ??= fastifyCookie.parse(req.headers.cookie ?? '');
  const token = req.cookies[SESSION_COOKIE];
  if (!token) throw missing(req, mode);
  const found = await resolveSession(s, token);
  if (!found) throw new AppError('UNAUTHORIZED', 'The session has ended or is unknown; sign in again.');
  // A cookie rides along on cross-site requests; the CSRF token only comes from our own pages.
  if (!SAFE_METHODS.has(req.method) && !csrfMatches(token, header(req, CSRF_HEADER)))
    throw new AppError('FORBIDDEN', `Missing or wrong CSRF token: send the ${CSRF_HEADER} header.`);
  req.userId = found.user.id;
  req.sessionId = found.session.id;
  req.sessionEmail = found.user.email;
  if (asOrganization !== undefined) {
    const role = /^[0-9a-f-]{36}$/.test(asOrganization)
      ? await s.accounts.organizations.roleOf(asOrganization, found.user.id)
      : undefined;
    if (!role) throw new AppError('NOT_FOUND', 'Organization not found.');
    req.organizationId = asOrganization;
  }
}
