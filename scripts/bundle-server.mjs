#!/usr/bin/env node
// Bundles the built control plane (packages/server/dist/main.js) into dist/bundle/main.cjs with
// esbuild, so `npm start` reads one file instead of resolving and compiling about 1,900 modules
// (typebox alone is ~700 ES modules): about a third of the cold start (docs/decisions/0027-scale.md).
// CommonJS, so bin/code-cache.js can compile it with V8's code cache (a vm.Script; Node 20 has no
// code cache for ES modules). What only some configurations load stays behind its dynamic import,
// in the bundle but not run (the Kubernetes backend, prom-client, pg) or a package of its own
// (the Stripe SDK, the Kubernetes client, nodemailer, music-metadata). Native addons are never
// bundled. esbuild comes with the full install (tsx and Vite depend on it); a production install
// keeps the bundle a full install built, and without one `npm start` runs dist/main.js as before
// (bin/start-built.js).
import { createRequire } from 'node:module';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
let esbuild;
try {
  esbuild = await import(require.resolve('esbuild'));
} catch {
  console.warn('berth: esbuild is not installed; npm start runs the unbundled control plane.');
  process.exit(0);
}
const out = 'packages/server/dist/bundle';

const chunks = new Map(); // package's file -> its chunk's name

/** A package's own resolution, as esbuild makes it without the plugin asking. */
const resolveReal = (build, args) =>
  build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'real' });
const exactly = (pkg) => new RegExp(`^${pkg.replace(/[/.]/g, '\\$&')}$`);

/**
 * The Kubernetes client (an ES module: 5.8 MB once bundled, ~4,000 model classes) is bundled into a
 * CommonJS file of its own beside the bundle: on WORKER_BACKEND=kubernetes, Node loaded its ES
 * modules one by one (~430 ms of that backend's start, and no code cache for ES modules on Node 20);
 * everyone else never reads the file. Only a module that is itself imported dynamically imports it
 * (runtime.ts), so a plain require of the file is already loaded on that backend only.
 */
const ownFile = (pkg, chunk) => ({
  name: `${pkg}-own-file`,
  setup(build) {
    build.onResolve({ filter: exactly(pkg) }, async (args) => {
      if (args.pluginData === 'real') return undefined;
      const real = await resolveReal(build, args);
      if (real.errors.length > 0 || real.external) return real;
      chunks.set(real.path, chunk);
      return { path: chunk, namespace: 'own-file' };
    });
    // Through the code cache when bin/start-built.js offers it (cachedRequire), as the bundle itself
    // is: compiling the file and the functions its evaluation calls was a third of its load.
    build.onLoad({ filter: /.*/, namespace: 'own-file' }, ({ path }) => ({
      loader: 'js',
      contents: `const file = require('node:path').join(__dirname, ${JSON.stringify(path)});
const cached = globalThis[Symbol.for('berth.cachedRequire')];
module.exports = typeof cached === 'function' ? cached(file) : require(file);`,
    }));
  },
});

/**
 * undici (0.74 MB, a fifth of what the start read, hashed and compiled) runs at its first use, from
 * a file of its own beside the bundle: every `import ... from 'undici'` gets a stand-in whose
 * exports are getters that require that file the first time one is read. Bundled in, a static
 * import ran its ~90 modules at every start (~40 ms), and each start read and hashed its text
 * (bin/code-cache.js); the control plane's first answer needs none of it (docs/decisions/0027-scale.md,
 * round 5). A package whose exports cannot be listed here is bundled in as before.
 */
const onFirstUse = (pkg) => ({
  name: `${pkg}-on-first-use`,
  setup(build) {
    build.onResolve({ filter: exactly(pkg) }, async (args) => {
      if (args.pluginData === 'real') return undefined;
      const real = await resolveReal(build, args);
      if (real.errors.length > 0 || real.external) return real;
      let names;
      try {
        names = Object.keys(createRequire(real.path)(real.path));
      } catch {
        return real;
      }
      if (!chunks.has(real.path)) {
        const taken = new Set(chunks.values());
        let name = `${pkg.replace(/[@/]/g, '_')}.cjs`;
        for (let i = 2; taken.has(name); i++) name = `${pkg.replace(/[@/]/g, '_')}-${i}.cjs`;
        chunks.set(real.path, name);
      }
      return { path: real.path, namespace: 'on-first-use', pluginData: { names, chunk: chunks.get(real.path) } };
    });
    build.onLoad({ filter: /.*/, namespace: 'on-first-use' }, ({ pluginData: { names, chunk } }) => ({
      loader: 'js',
      // The chunk's path is made at run time, so esbuild leaves the require alone.
      contents: `let real;
const load = () => (real ??= require(require('node:path').join(__dirname, ${JSON.stringify(chunk)})));
for (const name of ${JSON.stringify(names)})
  Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });`,
    }));
  },
});
// The schema the migrations leave in an empty SQLite database, taken from this build's migrations:
// a fresh store is created from it in one exec (openStore, platform/store/database.ts) instead of
// running the migrations one statement at a time. Left out if it cannot be taken: the migrations run.
let freshSchema;
try {
  const { freshSqliteSchema } = await import(pathToFileURL('packages/server/dist/platform/store/database.js').href);
  freshSchema = await freshSqliteSchema();
} catch (err) {
  console.warn(`berth: no SQLite schema in the bundle (a fresh store runs its migrations): ${err.message}`);
}
rmSync(out, { recursive: true, force: true });
await esbuild.build({
  entryPoints: ['packages/server/dist/main.js'],
  outfile: `${out}/main.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // import() of a package left out becomes require(), as a vm.Script has no import() without a
  // flag (or with an experimental warning): Node >= 20.19 requires ES modules (bin/berth-server.js).
  supported: { 'dynamic-import': false },
  // The bundled ES modules' `import.meta.url`: the bundle's URL, as when it was an ES module here.
  define: {
    'import.meta.url': '__berthImportMetaUrl',
    ...(freshSchema && { __berthFreshSqliteSchema: JSON.stringify(freshSchema) }),
  },
  // ("use strict" first: esbuild writes its own after the banner, where it is no directive.)
  banner: { js: "'use strict'; var __berthImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  // Stack traces point at the TypeScript (bin/stack-map.js reads the map at the first trace); the
  // map carries no copies of the sources.
  sourcemap: 'linked',
  // Without comments the bundle is a third smaller and plain ASCII (a few comments were not; esbuild
  // escapes the rest), so V8 scans it as one-byte text. Names stay: identifiers are not minified.
  minifyWhitespace: true,
  // The packages' license notices go beside the bundle (main.js.LEGAL.txt), one of them not ASCII.
  legalComments: 'external',
  sourcesContent: false,
  logLevel: 'warning',
  // yaml: @fastify/swagger's YAML output, which Berth does not serve.
  plugins: [onFirstUse('undici'), onFirstUse('yaml'), ownFile('@kubernetes/client-node', 'kubernetes-client.cjs')],
  // Native addons and the packages only some configurations load (imported dynamically).
  external: [
    'better-sqlite3',
    'argon2',
    'pg-native',
    'stripe',
    'nodemailer',
    'music-metadata',
    // Bundled, @fastify/cookie got a copy of cookie without parseCookie: an unauthenticated call
    // answered 500 (images smoke). Loaded from node_modules as in the unbundled server.
    '@fastify/cookie',
    'cookie',
  ],
});
for (const [entry, chunk] of chunks)
  await esbuild.build({
    entryPoints: [entry],
    outfile: `${out}/${chunk}`,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minifyWhitespace: true,
    legalComments: 'external',
    logLevel: 'warning',
    // ws's optional native helpers, loaded when installed.
    external: ['bufferutil', 'utf-8-validate'],
  });
// One-byte text or V8 scans it as two-byte (3.5 MB of it): fail the build rather than slow every start.
for (const f of ['main.cjs', ...chunks.values()]) {
  const text = readFileSync(`${out}/${f}`);
  if (text.some((b) => b > 0x7f)) throw new Error(`${out}/${f} is not plain ASCII`);
}

// The map keeps only the control plane's own code: the packages' frames stay as the bundle's lines.
// The map is read and parsed at the first stack trace (bin/stack-map.js), and at start-up a socket
// error while the agent host starts makes one: ~50,000 of ~500,000 mappings, 0.3 of 2.8 MB, parse
// in a seventh of the time. source-map-js is a root devDependency; an install without it keeps the whole map.
let sourceMap;
try {
  sourceMap = require(require.resolve('source-map-js'));
} catch {
  /* the whole map */
}
if (sourceMap) {
  const file = `${out}/main.cjs.map`;
  const whole = JSON.parse(readFileSync(file, 'utf8'));
  const own = new sourceMap.SourceMapGenerator({ file: whole.file });
  // Where a package's code follows ours, a mapping with no source ends ours: without it a frame in
  // fastify or ajv would take the place of whatever Berth code came before it in the bundle.
  let inOwn = false;
  new sourceMap.SourceMapConsumer(whole).eachMapping((m) => {
    if (!m.source || m.source.includes('node_modules/')) {
      if (inOwn) own.addMapping({ generated: { line: m.generatedLine, column: m.generatedColumn } });
      inOwn = false;
      return;
    }
    inOwn = true;
    own.addMapping({
      generated: { line: m.generatedLine, column: m.generatedColumn },
      original: { line: m.originalLine, column: m.originalColumn },
      source: m.source,
      name: m.name ?? undefined,
    });
  });
  writeFileSync(file, own.toString());
}
