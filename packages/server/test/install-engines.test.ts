// `npm ci` must print no EBADENGINE warning on the Node versions the README supports (issue 29):
// every package the lockfile installs accepts the oldest Node of the root `engines` range and the
// Node running this test. A dependency that moves its floor above ours turns this red, and the
// fix is a pin or an npm override (decision 0028, "Install").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);
const semver = require('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

type LockEntry = { engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] };

/** Lockfile entries npm installs on this machine (platform-only optional packages for other systems are skipped, as npm does). */
function installed(): Array<[string, LockEntry]> {
  const lock = JSON.parse(readFileSync(resolve(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  // npm's os/cpu fields: a list of allowed values, or of "!value" exclusions.
  const fits = (list: string[] | undefined, value: string) =>
    !list || list.includes(value) || (list.every((x) => x.startsWith('!')) && !list.includes(`!${value}`));
  return Object.entries(lock.packages).filter(
    ([path, e]) => path.includes('node_modules/') && fits(e.os, process.platform) && fits(e.cpu, process.arch),
  );
}

// The LTS lines Berth is tested on beside the oldest Node of the range (scripts/node-lts.sh; CI runs
// the PostgreSQL pass on Node 24).
const LTS = ['22.13.0', '24.0.0'];

test('every installed package accepts the Node versions of the root engines range (no EBADENGINE)', () => {
  const range = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')).engines.node as string;
  const oldest = semver.minVersion(range)!.version;
  for (const v of LTS) assert.ok(semver.satisfies(v, range), `engines ${range} leaves out Node ${v}`);
  const versions = [oldest, ...LTS, process.version.slice(1)].filter((v) => semver.satisfies(v, range));
  assert.ok(versions.includes(oldest));
  const refused: string[] = [];
  for (const [path, e] of installed()) {
    const wants = !Array.isArray(e.engines) ? e.engines?.node : undefined;
    if (!wants) continue;
    for (const v of versions)
      if (!semver.satisfies(v, wants))
        refused.push(`${path.split('node_modules/').pop()} wants node ${wants}, not ${v}`);
  }
  assert.deepEqual(refused, [], `pin a version that supports Node ${range}, or add an npm override`);
});
