#!/usr/bin/env node
// npm's `prepare` (run by `npm ci`): build every package to dist/. A production install
// (`npm ci --omit=dev`) has no TypeScript; it keeps the dist/ a full install built before.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  if (!existsSync('packages/server/dist/main.js')) {
    console.warn('berth: no TypeScript in this install and no dist/: build with a full install first (npm ci).');
  }
  process.exit(0);
}
const res = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(res.status ?? 1);
