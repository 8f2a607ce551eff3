// Deployments through the assistants API (the same routes and verbs as X-API-Key callers), polled
// while the page is open so a status change shows without a reload.
import { useQuery } from '@tanstack/react-query';
import type { components, paths } from '@berth/client';
import { activeOrganization, api, unwrap } from './client';

export type Deployment = components['schemas']['DeploymentRecord'];
export type ApiMode = Deployment['apiMode'];

const POLL_MS = 2000;

/** The query key includes who we act as, so switching organization never shows the other's list. */
export const deploymentsKey = () => ['deployments', activeOrganization() ?? 'personal'] as const;

const PAGE = 100;

/** The newest `pages` pages of deployments, and whether there are more. */
async function listDeployments(pages: number) {
  const items: Deployment[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < pages; i++) {
    const call = api.GET('/api/v1/assistants', { params: { query: { limit: PAGE, cursor } } });
    // unwrap gives `data` alone (and throws the typed error); the cursor is beside it in the body.
    items.push(...(await unwrap(call)));
    cursor = (await call).data?.nextCursor ?? undefined;
    if (!cursor) return { items, more: false };
  }
  return { items, more: true };
}

export function useDeployments(pages = 1) {
  const key = deploymentsKey();
  return useQuery({
    queryKey: [...key, 'list', pages],
    queryFn: () => listDeployments(pages),
    refetchInterval: POLL_MS,
    // "Show older" keeps the rows on screen while it loads, but never another owner's rows.
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === key[1] ? previous : undefined),
  });
}

export function useDeployment(id: string) {
  return useQuery({
    queryKey: [...deploymentsKey(), id],
    queryFn: () => unwrap(api.GET('/api/v1/assistants/{deploymentId}', { params: { path: { deploymentId: id } } })),
    refetchInterval: POLL_MS,
  });
}

/** The checkout link is answered once, by purchase; the tab keeps it so "Pay" works after a reload. */
export const checkoutLinks = {
  save(id: string, url: string) {
    sessionStorage.setItem(`berth.checkout.${id}`, url);
  },
  get(id: string): string | undefined {
    return sessionStorage.getItem(`berth.checkout.${id}`) ?? undefined;
  },
};

export const PLANS: { mode: ApiMode; title: string; text: string }[] = [
  { mode: 'byok', title: 'Bring your own key', text: 'Your model provider and key; you pay the provider.' },
  { mode: 'managed', title: 'Managed', text: 'Models through Berth, with monthly credits included.' },
  { mode: 'unlimited', title: 'Unlimited', text: 'Managed, with a much larger monthly allowance.' },
];

export type Plan = paths['/api/v1/plans']['get']['responses'][200]['content']['application/json']['data'][number];

/** Prices come from the payment provider, so the picker shows what checkout will charge. */
export function usePlans() {
  return useQuery({ queryKey: ['plans'], queryFn: () => unwrap(api.GET('/api/v1/plans')), staleTime: 60_000 });
}
