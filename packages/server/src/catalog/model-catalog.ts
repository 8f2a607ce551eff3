// The model catalog: which providers exist, where their OpenAI-compatible endpoint lives and
// which models a deployment may pick. Loaded once at start-up; a bad file stops start-up.
import { readFileSync } from 'node:fs';

export interface CatalogProvider {
  id: string;
  name?: string;
  baseUrl: string;
  models: string[];
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
    if (typeof p.baseUrl !== 'string' || !/^https?:\/\//.test(p.baseUrl)) throw new Error(`${where}.baseUrl must be an http(s) URL`);
    if (!Array.isArray(p.models) || p.models.some((m: unknown) => typeof m !== 'string' || !m)) {
      throw new Error(`${where}.models must be an array of model ids`);
    }
    if (byId.has(p.id)) throw new Error(`${where}.id "${p.id}" appears twice`);
    byId.set(p.id, { id: p.id, name: p.name, baseUrl: p.baseUrl.replace(/\/+$/, ''), models: [...p.models] });
  }
  return { source, providers: [...byId.values()], provider: (id) => byId.get(id) };
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
