// A user's TypeScript project around a client generated from Berth's OpenAPI document, compiled the
// way the user would: ES modules and the repository's own strict compiler settings.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../../..');

/**
 * Makes `dir` such a project: `fixture` (a path) as its usage.ts, and a tsconfig extending
 * tsconfig.base.json with `compilerOptions` (noEmit added) that compiles `include`.
 */
export function writeUserProject(dir: string, fixture: string, compilerOptions: object, include: string[]): void {
  copyFileSync(fixture, join(dir, 'usage.ts'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.base.json'),
      compilerOptions: { noEmit: true, ...compilerOptions },
      include,
    }),
  );
}

/** The repository's tsc compiles the project in `dir` without an error. */
export function assertCompiles(dir: string): void {
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(tsc.status, 0, `${tsc.stdout}\n${tsc.stderr}`);
}
