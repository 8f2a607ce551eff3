// The dashboard's one client: @berth/client over the session cookie. Writes carry the session's
// CSRF token; acting as an organization adds x-berth-organization (ACCOUNTS-CONTRACT.md).
import { createBerthClient, unwrap } from '@berth/client';

const ORG_KEY = 'berth.organization';

let csrfToken: string | undefined;
let organizationId: string | undefined = localStorage.getItem(ORG_KEY) ?? undefined;

export function setCsrfToken(token: string | undefined) {
  csrfToken = token;
}

/** Headers a raw fetch that writes needs (routes outside the typed client, such as the demo's). */
export function writeHeaders(): Record<string, string> {
  return csrfToken
    ? { 'x-berth-csrf': csrfToken, 'content-type': 'application/json' }
    : { 'content-type': 'application/json' };
}

export function activeOrganization(): string | undefined {
  return organizationId;
}

export function setActiveOrganization(id: string | undefined) {
  organizationId = id;
  if (id) localStorage.setItem(ORG_KEY, id);
  else localStorage.removeItem(ORG_KEY);
}

export const api = createBerthClient({ baseUrl: window.location.origin });

api.use({
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD' && csrfToken) {
      request.headers.set('x-berth-csrf', csrfToken);
    }
    // Only the assistants API acts as an organization; keys and organizations name theirs explicitly.
    if (organizationId && new URL(request.url).pathname.startsWith('/api/v1/')) {
      request.headers.set('x-berth-organization', organizationId);
    }
    return request;
  },
});

export { unwrap };
