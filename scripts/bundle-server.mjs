#!/usr/bin/env node
// Bundles the built control plane (packages/server/dist/main.js) into dist/bundle/ with esbuild, so
// `npm start` reads a few files instead of resolving and compiling about 1,900 modules (typebox
// alone is ~700 ES modules): about a third of the cold start (docs/decisions/0027-scale.md).
// What a start does not need stays behind a dynamic import, in its own chunk or package: the
// Stripe SDK, the Kubernetes client, nodemailer, music-metadata, pg, prom-client. Native addons
// are never bundled. esbuild comes with the full install (tsx and Vite depend on it); a
// production install keeps the bundle a full install built, and without one `npm start` runs
// dist/main.js as before (bin/start-built.js).
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';

const require = createRequire(import.meta.url);
let esbuild;
try {
  esbuild = await import(require.resolve('esbuild'));
} catch {
  console.warn('berth: esbuild is not installed; npm start runs the unbundled control plane.');
  process.exit(0);
}
const out = 'packages/server/dist/bundle';
rmSync(out, { recursive: true, force: true });
await esbuild.build({
  entryPoints: ['packages/server/dist/main.js'],
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Stack traces point at the TypeScript (start-built.js turns source maps on); the map carries no
  // copies of the sources, which Node would otherwise read and parse with it at every start.
  sourcemap: 'linked',
  // Without comments the bundle is a third smaller and plain ASCII (a few comments were not), so
  // Node decodes and V8 scans it as one-byte text. Names stay: identifiers are not minified.
  minifyWhitespace: true,
  // The packages' license notices go beside the bundle (main.js.LEGAL.txt), one of them not ASCII.
  legalComments: 'external',
  sourcesContent: false,
  logLevel: 'warning',
  // Native addons and the packages only some configurations load (imported dynamically).
  external: [
    'better-sqlite3',
    'argon2',
    'pg-native',
    'stripe',
    '@kubernetes/client-node',
    'nodemailer',
    'music-metadata',
    // Bundled, @fastify/cookie got a copy of cookie without parseCookie: an unauthenticated call
    // answered 500 (images smoke). Loaded from node_modules as in the unbundled server.
    '@fastify/cookie',
    'cookie',
  ],
  // The packages written as CommonJS call require(); an ES module bundle has none of its own.
  banner: {
    js: "import { createRequire as __berthRequire } from 'node:module'; const require = __berthRequire(import.meta.url);",
  },
});
