// Imports a built entry point, or tells the person how to build it when dist/ is missing.
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cachedRequire } from './code-cache.js';
import { mapStackTraces } from './stack-map.js';

/** The start's code cache is written this long after the bundle ran: the start's functions are compiled by then. */
const SAVE_CODE_CACHE_AFTER_MS = 3000;

/** @param {URL} entry */
export async function startBuilt(entry) {
  if (!existsSync(entry)) {
    console.error(`berth: ${entry.pathname} is missing; build first with "npm run build" (npm ci does it).`);
    process.exit(1);
  }
  if (entry.pathname.endsWith('.cjs')) {
    // The CommonJS bundle: compiled with V8's code cache, its stack traces mapped when first formatted.
    const file = fileURLToPath(entry);
    mapStackTraces(file);
    // The bundle and the files of its own it requires (the Kubernetes client) run through one loader.
    const load = cachedRequire(SAVE_CODE_CACHE_AFTER_MS);
    globalThis[Symbol.for('berth.cachedRequire')] = load;
    load(file);
    return;
  }
  process.setSourceMapsEnabled(true); // stack traces point at the TypeScript source
  await import(entry.href);
}

/**
 * `bundle` when it exists and was made after the last compile of what it bundles (`builtFrom`, the
 * packages' .tsbuildinfo files, rewritten by every `tsc -b` that emits): a `tsc -b` without a
 * new bundle then runs the fresh compiled code, never a stale bundle. Undefined otherwise.
 * @param {URL} bundle
 * @param {URL[]} builtFrom
 */
export function freshBundle(bundle, builtFrom) {
  const made = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs;
  if (made === undefined) return undefined;
  const compiled = Math.max(0, ...builtFrom.map((f) => statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0));
  return made >= compiled ? bundle : undefined;
}
