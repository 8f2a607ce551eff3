// TypeBox and Kysely as one module file each for the test processes (scripts/run-tests.mjs).
//
// Why: a test file's process loads the code through tsx's module hooks, which Node 20 runs on a
// separate thread, one round trip per import. TypeBox ships 709 files and Kysely several hundred:
// 81 % of the 4,166 resolutions that loading the control plane takes. Loading it cost 2.1–2.5 s of
// CPU through the hooks against 0.8–1.0 s without them, in each of the suite's ~400 processes; with
// these two libraries bundled, 1.3–1.4 s (docs/decisions/0031-ci-round-4.md).
// The bundles are the installed versions' own code, split so that `typebox`, `typebox/compile` and
// `typebox/format` share one instance of TypeBox (its format registry is module state). Production
// and every process a test starts (agent hosts, `berth`) load the libraries as installed.
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUNDLED, OUT_DIR } from './bundled.mjs';

/** Builds the bundles unless those of the installed versions are there already. */
export async function buildTestDeps() {
  const stamp = JSON.stringify({
    versions: ['typebox', 'kysely', 'esbuild'].map((p) => `${p}@${installedVersion(p)}`),
    bundled: BUNDLED,
  });
  const stampFile = `${OUT_DIR}stamp.json`;
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  rmSync(OUT_DIR, { recursive: true, force: true });
  await build({
    // Each resolved as an ESM import would be (Kysely also ships CommonJS).
    entryPoints: Object.fromEntries(
      Object.entries(BUNDLED).map(([spec, file]) => [
        file.replace(/\.mjs$/, ''),
        fileURLToPath(import.meta.resolve(spec)),
      ]),
    ),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  writeFileSync(stampFile, stamp);
}

function installedVersion(pkg) {
  return JSON.parse(readFileSync(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;
}
