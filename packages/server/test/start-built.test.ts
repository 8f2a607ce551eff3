// `npm start` runs the bundle only when it is not older than the compiled code it bundles: after a
// `tsc -b` that emitted and no new bundle, the fresh dist/main.js runs, never a stale bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
// @ts-expect-error plain JavaScript without declarations (the bin/ scripts run before any build)
import { freshBundle } from '../bin/start-built.js';

test('the bundle is used when made after the last compile, not when a compile came later or it is missing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-start-built-'));
  try {
    const file = (name: string, at: number) => {
      const p = join(dir, name);
      writeFileSync(p, '');
      utimesSync(p, at, at);
      return pathToFileURL(p);
    };
    const server = file('server.tsbuildinfo', 1_000);
    const contracts = file('contracts.tsbuildinfo', 1_000);
    const bundle = file('main.js', 2_000);
    assert.equal(freshBundle(bundle, [server, contracts])?.href, bundle.href);
    // A later compile of either package, and no new bundle: stale.
    utimesSync(contracts.pathname, 3_000, 3_000);
    assert.equal(freshBundle(bundle, [server, contracts]), undefined);
    // No bundle at all (a build without esbuild).
    assert.equal(freshBundle(pathToFileURL(join(dir, 'none.js')), [server]), undefined);
    // A package never compiled here counts as old.
    assert.equal(freshBundle(bundle, [server, pathToFileURL(join(dir, 'absent'))])?.href, bundle.href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
