#!/usr/bin/env node
// Writes the bundle's V8 code cache beside it, where an image's read-only copy keeps it
// (docker/Dockerfile runs this at build time): without it every new container compiled the
// bundle's 2.7 MB at its first start and could not keep the cache (docs/decisions/0027-scale.md,
// round 5). Starts `npm start`'s program once on a throwaway store, as the image runs it
// (NODE_ENV=production, the default local backend), until bin/start-built.js has saved the cache.
// The cache is accepted only by the same Node (V8 checks its version and flags) and the same bundle
// (bin/code-cache.js checks its CRC-32): the image's build stage runs the runtime stage's node.
// A start that fails here leaves no cache and a warning: the image then works as before.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheFilesFor } from '../packages/server/bin/code-cache.js';

const bundle = fileURLToPath(new URL('../packages/server/dist/bundle/main.cjs', import.meta.url));
const [beside] = cacheFilesFor(bundle);
const WAIT_MS = 60_000;

if (!existsSync(bundle)) {
  console.warn('berth: no bundle to warm (build first); the first start compiles it.');
  process.exit(0);
}
rmSync(beside, { force: true });
const dataDir = mkdtempSync(join(tmpdir(), 'berth-warm-'));
const child = spawn(
  process.execPath,
  [fileURLToPath(new URL('../packages/server/bin/berth-server.js', import.meta.url))],
  {
    env: { ...process.env, NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);
const exited = new Promise((r) => child.once('exit', r));
const end = Date.now() + WAIT_MS;
const running = () => child.exitCode === null && child.signalCode === null;
while (!existsSync(beside) && running() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
child.kill('SIGTERM');
// A shutdown that hangs must not hang the image build: killed after 10 s.
const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
await exited;
clearTimeout(killer);
rmSync(dataDir, { recursive: true, force: true });
if (existsSync(beside)) console.log(`berth: code cache written: ${beside}`);
else console.warn('berth: no code cache was written; each first start compiles the bundle.');

// The Kubernetes client's own file (loaded on WORKER_BACKEND=kubernetes only, through a cache of
// its own): evaluated once here, as a start on that backend does, and its cache written beside it.
const client = fileURLToPath(new URL('../packages/server/dist/bundle/kubernetes-client.cjs', import.meta.url));
if (existsSync(client)) {
  const [clientBeside] = cacheFilesFor(client);
  rmSync(clientBeside, { force: true });
  const warm = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { runCached } from ${JSON.stringify(new URL('../packages/server/bin/code-cache.js', import.meta.url).href)};
       runCached(${JSON.stringify(client)}).save();`,
    ],
    { env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'ignore', 'inherit'], timeout: WAIT_MS },
  );
  if (warm.status === 0 && existsSync(clientBeside)) console.log(`berth: code cache written: ${clientBeside}`);
  else console.warn("berth: no code cache for the Kubernetes client's file; its first load compiles it.");
}
