// Model catalogs (MODEL_CATALOG) for tests: each in a file of its own.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes a catalog of these providers; returns the file's path. */
export function writeCatalog(providers: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'berth-catalog-')), 'models.json');
  writeFileSync(file, JSON.stringify({ providers }));
  return file;
}

/** gpt-4o-mini from OpenAI itself and through OpenRouter, both at `baseUrl`: a managed router. */
export function routerCatalog(baseUrl: string): string {
  const pricing = { prompt: 1, completion: 2 };
  return writeCatalog([
    { id: 'openai', baseUrl, models: [{ id: 'gpt-4o-mini', pricing }] },
    { id: 'openrouter', baseUrl, models: [{ id: 'openai/gpt-4o-mini', pricing }] },
  ]);
}
