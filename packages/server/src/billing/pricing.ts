// Catalog prices (USD per million tokens) turned into whole nano-dollars, the ledger's unit.
import type { CatalogProvider, ModelPricing } from '../catalog/index.js';

export const NANO_PER_USD = 1_000_000_000;

/** Reservation price of a model the catalog does not price (its provider reports costs). */
const UNPRICED_RESERVE: ModelPricing = { prompt: 15, completion: 75 };

export const usdToNano = (usd: number) => Math.round(usd * NANO_PER_USD);
export const nanoToUsd = (nano: number) => Math.round(nano / 1000) / 1_000_000;

export function costNano(p: ModelPricing, promptTokens: number, completionTokens: number): number {
  return Math.ceil(promptTokens * p.prompt * 1000 + completionTokens * p.completion * 1000);
}

/** What a reservation is priced at: the model's price, else the dearest price the provider lists. */
export function reservePricing(provider: CatalogProvider | undefined, model: string): ModelPricing {
  const own = provider?.pricing.get(model);
  if (own) return own;
  const all = [...(provider?.pricing.values() ?? [])];
  if (!all.length) return UNPRICED_RESERVE;
  return { prompt: Math.max(...all.map((x) => x.prompt)), completion: Math.max(...all.map((x) => x.completion)) };
}

/** Token counts at their source: the provider's `usage` object, with `cost` (USD) when it reports one. */
export interface ReportedUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  cost?: unknown;
}

const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** Cost of a reply: catalog price when the model has one, else what the provider reported. */
export function replyCost(provider: CatalogProvider | undefined, model: string, usage: ReportedUsage) {
  const promptTokens = count(usage.prompt_tokens);
  const completionTokens = count(usage.completion_tokens);
  const price = provider?.pricing.get(model);
  const reported = typeof usage.cost === 'number' && Number.isFinite(usage.cost) && usage.cost > 0 ? usage.cost : 0;
  const nano = price ? costNano(price, promptTokens, completionTokens) : Math.ceil(reported * NANO_PER_USD);
  return { promptTokens, completionTokens, costNano: nano };
}
