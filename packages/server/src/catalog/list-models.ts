// The model picker's list (DESIGN §7.1): every model of the server's catalog with the modes it
// can run in and its price, so the dashboard and the CLI offer a select instead of a text box.
// byok runs any provider's models on the owner's key; managed and unlimited run the models of
// the platform's router provider.
import type { ModelCatalog } from './model-catalog.js';
import { assertCaller, type Caller } from '../services.js';

export interface CatalogModel {
  provider: string;
  id: string;
  modes: Array<'byok' | 'managed' | 'unlimited'>;
  /** USD per million tokens; null when the catalog has no price (the provider bills byok). */
  pricing: { prompt: number; completion: number } | null;
  capabilities: string[];
}

export function listCatalogModels(
  s: { catalog: ModelCatalog; managedProvider: string },
  caller: Caller,
): CatalogModel[] {
  assertCaller(caller);
  return s.catalog.providers.flatMap((p) =>
    p.models.map((id) => ({
      provider: p.id,
      id,
      modes: p.id === s.managedProvider ? (['byok', 'managed', 'unlimited'] as const).slice() : ['byok' as const],
      pricing: p.pricing.get(id) ?? null,
      capabilities: p.capabilities.get(id) ?? ['text'],
    })),
  );
}
