// Keys and organizations (ACCOUNTS-CONTRACT.md), cached by TanStack Query.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';

export function useKeys() {
  return useQuery({ queryKey: ['keys'], queryFn: () => unwrap(api.GET('/api/keys')) });
}

export function useOrganizations() {
  return useQuery({ queryKey: ['organizations'], queryFn: () => unwrap(api.GET('/api/organizations')) });
}

export function useMembers(id: string | undefined) {
  return useQuery({
    queryKey: ['organizations', id, 'members'],
    queryFn: () => unwrap(api.GET('/api/organizations/{id}/members', { params: { path: { id: id! } } })),
    enabled: Boolean(id),
  });
}

/** The account's callback secret; fetched only when the user asks to see it, never cached. */
export function fetchCallbackSecret() {
  return unwrap(api.GET('/api/auth/callback-secret')).then((d) => d.secret);
}
