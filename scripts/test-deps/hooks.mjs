// Module hooks of the test processes: our imports of TypeBox and Kysely resolve to their bundles
// (build.mjs says why). Anything else goes on to tsx's hooks and Node's own.
import { pathToFileURL } from 'node:url';
import { BUNDLED, OUT_DIR } from './bundled.mjs';

const urls = new Map(Object.entries(BUNDLED).map(([spec, file]) => [spec, pathToFileURL(OUT_DIR + file).href]));

export async function resolve(specifier, context, next) {
  const url = urls.get(specifier);
  return url ? { url, format: 'module', shortCircuit: true } : next(specifier, context);
}
