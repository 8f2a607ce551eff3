// The server package's folder, where the files it ships sit next to its code: package.json and
// catalog/models.json. This module runs from src/platform/ (tsx), dist/platform/ (tsc) or the bundle,
// dist/bundle/main.cjs (scripts/bundle-server.mjs; its `import.meta.url` is the bundle's): all three
// are two folders below the package, so one relative URL names it from each.
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A file the server package ships, by its path in the package. */
export const shippedFile = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
