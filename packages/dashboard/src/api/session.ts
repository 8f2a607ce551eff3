// Who is signed in: GET /api/auth/session, cached by TanStack Query; its CSRF token feeds the client.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { BerthApiError } from '@berth/client';
import { api, setActiveOrganization, activeOrganization, setCsrfToken, unwrap } from './client';

export const sessionKey = ['session'] as const;

async function loadSession() {
  try {
    const s = await unwrap(api.GET('/api/auth/session'));
    setCsrfToken(s.csrfToken);
    // An organization the user left (or never had) is not acted as.
    const org = activeOrganization();
    if (org && !s.organizations.some((o) => o.id === org)) setActiveOrganization(undefined);
    return s;
  } catch (err) {
    if (err instanceof BerthApiError && err.code === 'UNAUTHORIZED') {
      setCsrfToken(undefined);
      return null;
    }
    throw err;
  }
}

export function useSession() {
  return useQuery({ queryKey: sessionKey, queryFn: loadSession, staleTime: 60_000 });
}

/** After sign-in, sign-up, sign-out or an accepted invitation: forget everything cached. */
export function useResetSession() {
  const qc = useQueryClient();
  return async () => {
    qc.removeQueries();
    await qc.fetchQuery({ queryKey: sessionKey, queryFn: loadSession });
  };
}
