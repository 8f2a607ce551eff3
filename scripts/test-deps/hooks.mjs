// Module hooks of the test processes: our imports of TypeBox and Kysely resolve to their bundles
// (build.mjs says why). Anything else goes on to tsx's hooks and Node's own.
import { pathToFileURL } from 'node:url';
import { BUNDLED, OUT_DIR } from './bundled.mjs';

const urls = new Map(Object.entries(BUNDLED).map(([spec, file]) => [spec, pathToFileURL(OUT_DIR + file).href]));

/** The in-thread hook (module.registerHooks). */
export function resolveSync(specifier, context, next) {
  const url = urls.get(specifier);
  return url ? { url, format: 'module', shortCircuit: true } : next(specifier, context);
}

/** The off-thread hook (module.register, Node 20): the same answer. */
export const resolve = async (specifier, context, next) => resolveSync(specifier, context, next);
