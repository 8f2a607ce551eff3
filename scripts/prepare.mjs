#!/usr/bin/env node
// npm's `prepare` (run by `npm ci`): build every package to dist/, then the dashboard with Vite. A
// production install (`npm ci --omit=dev`) has neither TypeScript nor Vite; it keeps the dist/ a full
// install built before.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  if (!existsSync('packages/server/dist/main.js')) {
    console.warn('berth: no TypeScript in this install and no dist/: build with a full install first (npm ci).');
  }
  if (!existsSync('packages/dashboard/dist/index.html')) {
    console.warn('berth: the dashboard is not built; the server runs without it (build with a full install).');
  }
  process.exit(0);
}
const res = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
if (res.status !== 0) process.exit(res.status ?? 1);
// The control plane's bundle, which `npm start` runs (scripts/bundle-server.mjs).
const bundled = spawnSync(process.execPath, ['scripts/bundle-server.mjs'], { stdio: 'inherit' });
if (bundled.status !== 0) process.exit(bundled.status ?? 1);

// The dashboard: Vite and React are devDependencies of packages/dashboard, so only a full install has them.
let vite;
try {
  vite = await import('vite');
} catch {
  process.exit(0);
}
await vite.build({ root: 'packages/dashboard', logLevel: 'warn' });
