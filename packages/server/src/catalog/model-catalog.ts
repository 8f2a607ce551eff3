// The model catalog: which providers exist, where their OpenAI-compatible endpoint lives and
// which models a deployment may pick. Loaded once at start-up; a bad file stops start-up.
import { readFileSync } from 'node:fs';

/** USD per million tokens. */
export interface ModelPricing {
  prompt: number;
  completion: number;
}

export interface CatalogProvider {
  id: string;
  name?: string;
  baseUrl: string;
  models: string[];
  /** Catalog prices of the models that have one (a model entry may be `{"id","pricing"}`). */
  pricing: Map<string, ModelPricing>;
  /** What a model can take besides text ("vision", "tools", ...), when the catalog says. */
  capabilities: Map<string, string[]>;
  /** The provider reports each reply's cost in `usage.cost` (OpenRouter does). */
  reportsCost: boolean;
}

export interface ModelCatalog {
  source: string;
  providers: CatalogProvider[];
  provider(id: string): CatalogProvider | undefined;
}

export function parseCatalog(json: unknown, source: string): ModelCatalog {
  const providers = (json as { providers?: unknown })?.providers;
  if (!Array.isArray(providers) || providers.length === 0) {
    throw new Error(`${source}: expected {"providers":[{"id","baseUrl","models":[...]}]}`);
  }
  const byId = new Map<string, CatalogProvider>();
  for (const [i, p] of providers.entries()) {
    const where = `${source}: providers[${i}]`;
    if (!p || typeof p.id !== 'string' || !p.id) throw new Error(`${where}.id must be a non-empty string`);
    if (typeof p.baseUrl !== 'string' || !/^https?:\/\//.test(p.baseUrl))
      throw new Error(`${where}.baseUrl must be an http(s) URL`);
    if (!Array.isArray(p.models)) throw new Error(`${where}.models must be an array of model ids`);
    const models: string[] = [];
    const pricing = new Map<string, ModelPricing>();
    const capabilities = new Map<string, string[]>();
    for (const [j, m] of (p.models as unknown[]).entries()) {
      const entry = parseModelEntry(m, `${where}.models[${j}]`);
      models.push(entry.id);
      if (entry.pricing) pricing.set(entry.id, entry.pricing);
      if (entry.capabilities) capabilities.set(entry.id, entry.capabilities);
    }
    if (byId.has(p.id)) throw new Error(`${where}.id "${p.id}" appears twice`);
    byId.set(p.id, {
      id: p.id,
      name: p.name,
      baseUrl: p.baseUrl.replace(/\/+$/, ''),
      models,
      pricing,
      capabilities,
      reportsCost: p.reportsCost === true,
    });
  }
  return { source, providers: [...byId.values()], provider: (id) => byId.get(id) };
}

function parseModelEntry(m: unknown, where: string): { id: string; pricing?: ModelPricing; capabilities?: string[] } {
  if (typeof m === 'string' && m) return { id: m };
  const o = m as {
    id?: unknown;
    pricing?: { prompt?: unknown; completion?: unknown };
    capabilities?: unknown;
  } | null;
  if (!o || typeof o !== 'object' || typeof o.id !== 'string' || !o.id) {
    throw new Error(`${where} must be a model id or {"id","pricing":{"prompt","completion"}}`);
  }
  let capabilities: string[] | undefined;
  if (o.capabilities !== undefined) {
    if (!Array.isArray(o.capabilities) || !o.capabilities.every((c) => typeof c === 'string' && c))
      throw new Error(`${where}.capabilities must be an array of names ("vision", "tools", ...)`);
    capabilities = o.capabilities as string[];
  }
  if (o.pricing === undefined) return { id: o.id, ...(capabilities ? { capabilities } : {}) };
  const price = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  if (!o.pricing || !price(o.pricing.prompt) || !price(o.pricing.completion)) {
    throw new Error(`${where}.pricing must be {"prompt","completion"}: USD per million tokens, numbers >= 0`);
  }
  return {
    id: o.id,
    pricing: { prompt: o.pricing.prompt as number, completion: o.pricing.completion as number },
    ...(capabilities ? { capabilities } : {}),
  };
}

/**
 * Managed deployments are metered at catalog prices; a model without one is accepted only when its
 * provider reports each reply's cost. Throws the start-up error naming the models.
 */
export function checkManagedPricing(catalog: ModelCatalog, managedProvider: string): void {
  const p = catalog.provider(managedProvider);
  if (!p || p.reportsCost) return;
  const unpriced = p.models.filter((m) => !p.pricing.has(m));
  if (unpriced.length) {
    throw new Error(
      `MODEL_CATALOG: the managed provider "${p.id}" has models without "pricing" (${unpriced.join(', ')}), and it does not report costs ("reportsCost": true); managed usage could not be metered. Give each model {"id","pricing":{"prompt","completion"}} in USD per million tokens.`,
    );
  }
}

export function loadCatalog(path: string): ModelCatalog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`MODEL_CATALOG: cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return parseCatalog(JSON.parse(text), path);
  } catch (err) {
    throw new Error(`MODEL_CATALOG: ${(err as Error).message}`);
  }
}
