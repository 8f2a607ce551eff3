// The model catalog (GET /api/v1/catalog/models): what the activate and update forms offer for a
// slot's mode, each model with its price and what it can do, so nobody types a model id.
import { useQuery } from '@tanstack/react-query';
import type { paths } from '@berth/client';
import { api, unwrap } from './client';
import type { ApiMode } from './deployments';

export type CatalogModel =
  paths['/api/v1/catalog/models']['get']['responses'][200]['content']['application/json']['data'][number];

export function useCatalog() {
  return useQuery({
    queryKey: ['catalog', 'models'],
    queryFn: () => unwrap(api.GET('/api/v1/catalog/models')),
    staleTime: 5 * 60_000,
    // A failure is shown at once with its own "Try again", not hidden behind silent retries.
    retry: false,
  });
}

export const modelsFor = (list: CatalogModel[], mode: ApiMode) => list.filter((m) => m.modes.includes(mode));

const perMillion = (p: { prompt: number; completion: number }) =>
  `$${p.prompt} in / $${p.completion} out per 1M tokens`;

/**
 * byok: what the owner's provider charges (or that the provider bills it, when the catalog has no
 * price). managed/unlimited: included in the plan's monthly credits, metered at these prices.
 */
export function priceLabel(m: CatalogModel, mode: ApiMode): string {
  if (mode === 'byok') return m.pricing ? perMillion(m.pricing) : 'billed by your provider';
  return m.pricing ? `included credits, ${perMillion(m.pricing)}` : "included credits, at the provider's cost";
}

const CAPABILITY_WORDS: Record<string, string> = { vision: 'sees images', text: 'text' };

export const capabilityLabel = (m: CatalogModel) =>
  m.capabilities.map((c) => CAPABILITY_WORDS[c] ?? c).join(', ') || 'text';

/** One line of the select: the model, its price and what it can do. */
export function modelLabel(m: CatalogModel, mode: ApiMode): string {
  const name = mode === 'byok' ? `${m.provider} / ${m.id}` : m.id;
  return `${name} — ${priceLabel(m, mode)} · ${capabilityLabel(m)}`;
}
