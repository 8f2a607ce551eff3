// What a route declares about its caller (its auth mode) and what the request carries once the
// caller is known. Deciding who calls is the accounts' job (accounts/identify.ts): the platform
// names the contract and never reaches into a capability.

/**
 * apiKey: X-API-Key or the session cookie. apiKeyOrBearer: also Bearer. session: the cookie only
 * (the browser session's own routes). public: nobody is identified (sign-up, sign-in).
 */
export type AuthMode = 'apiKey' | 'apiKeyOrBearer' | 'session' | 'public';

export const SESSION_COOKIE = 'berth_session';
export const CSRF_HEADER = 'x-berth-csrf';
export const ORGANIZATION_HEADER = 'x-berth-organization';

declare module 'fastify' {
  interface FastifyRequest {
    userId: string;
    /** The organization the request acts for, null for a person's own resources. */
    organizationId: string | null;
    /** The API key that authenticated the request, null for a browser session. */
    keyId: string | null;
    /** The browser session that authenticated the request. */
    sessionId?: string;
    /** The signed-in user's email (session requests). */
    sessionEmail?: string;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
}
