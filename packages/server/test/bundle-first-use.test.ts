// The built bundle loads undici from a file of its own at its first use (scripts/bundle-server.mjs):
// the start does not run it, and the first request that needs it (here /readyz, which asks the
// local agent host through an undici pool) answers as it would with undici bundled in. Needs
// `npm run build` (npm ci runs it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
// @ts-expect-error plain JavaScript without declarations (bin/)
import { freshBundle } from '../bin/start-built.js';

const SERVER = resolve(import.meta.dirname, '..');
const BUNDLE = join(SERVER, 'dist/bundle/main.cjs');

test('the bundle holds no undici; it loads beside it at first use and a first /readyz answers', async () => {
  const fresh = freshBundle(pathToFileURL(BUNDLE), [
    pathToFileURL(join(SERVER, 'dist/.tsbuildinfo')),
    pathToFileURL(join(SERVER, '../contracts/dist/.tsbuildinfo')),
  ]);
  assert.ok(fresh, 'no fresh bundle: run `npm run build` first');
  assert.ok(!readFileSync(BUNDLE, 'latin1').includes('node_modules/undici/lib/'), 'undici is bundled into main.cjs');
  assert.ok(existsSync(join(SERVER, 'dist/bundle/undici.cjs')));

  const dataDir = mkdtempSync(join(tmpdir(), 'berth-first-use-'));
  // NODE_DEBUG=module: Node says which file each require() loads, so the test sees when undici does.
  const child = spawn(process.execPath, [join(SERVER, 'bin/berth-server.js')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_DEBUG: 'module' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let undiciLoadedAt: number | undefined;
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (undiciLoadedAt === undefined && /load "[^"]*dist\/bundle\/undici\.cjs"/.test(stderr))
      undiciLoadedAt = Date.now();
  });
  try {
    const { url, readyAt } = await new Promise<{ url: string; readyAt: number }>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`not ready within 60 s: ${stderr.slice(-2000)}`)), 60_000);
      child.once('exit', (code) => fail(new Error(`exited with ${code}: ${stderr.slice(-2000)}`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (!line.includes('"msg":"berth control plane ready"')) return;
        clearTimeout(timer);
        ok({ url: JSON.parse(line).address, readyAt: Date.now() });
      });
    });
    assert.ok(undiciLoadedAt === undefined || undiciLoadedAt >= readyAt, 'undici was loaded before listening');
    // The first request: the agent host may still be starting (503 until it answers), never a 500.
    const first = await request(`${url}/readyz`);
    assert.ok([200, 503].includes(first.statusCode), `first /readyz: ${first.statusCode}`);
    let body = (await first.body.json()) as { ok: boolean; checks: Record<string, string> };
    for (const end = Date.now() + 30_000; !body.ok && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 200));
      const res = await request(`${url}/readyz`);
      assert.ok([200, 503].includes(res.statusCode), `/readyz: ${res.statusCode}`);
      body = (await res.body.json()) as typeof body;
    }
    assert.deepEqual(body.checks, { store: 'ok', workers: 'ok', jobs: 'ok' });
    assert.ok(undiciLoadedAt !== undefined, 'the agent host was asked without loading undici');
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});
