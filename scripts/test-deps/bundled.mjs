// What build.mjs bundles and where, read by the hooks too (which must not load esbuild).
import { fileURLToPath } from 'node:url';

/** The specifiers our code imports, each to the bundle that stands for it. */
export const BUNDLED = {
  typebox: 'typebox.mjs',
  'typebox/compile': 'typebox-compile.mjs',
  'typebox/format': 'typebox-format.mjs',
  kysely: 'kysely.mjs',
};

export const OUT_DIR = fileURLToPath(new URL('../../node_modules/.cache/berth/test-deps/', import.meta.url));
