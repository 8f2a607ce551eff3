// The built bundle's files of their own (scripts/bundle-server.mjs): undici, loaded at its first use
// (the start does not run it, and the first request that needs it, here /readyz, which asks the
// local agent host through an undici pool, answers as it would with undici bundled in), and the
// Kubernetes client, loaded on that backend only, through a code cache of its own); and the code cache an image bakes at build time.
// Needs `npm run build` (npm ci runs it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { FakeKubernetes } from '@berth/testkit';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openStore } from '../src/platform/store/database.js';
// @ts-expect-error plain JavaScript without declarations (bin/)
import { freshBundle } from '../bin/start-built.js';
// @ts-expect-error the same
import { cacheFilesFor } from '../bin/code-cache.js';

const SERVER = resolve(import.meta.dirname, '..');
const BUNDLE = join(SERVER, 'dist/bundle/main.cjs');

function assertFreshBundle() {
  const fresh = freshBundle(pathToFileURL(BUNDLE), [
    pathToFileURL(join(SERVER, 'dist/.tsbuildinfo')),
    pathToFileURL(join(SERVER, '../contracts/dist/.tsbuildinfo')),
  ]);
  assert.ok(fresh, 'no fresh bundle: run `npm run build` first');
}

/**
 * Starts `npm start`'s program on a fresh store and resolves with its address once it is ready,
 * noting when it required `chunk` (NODE_DEBUG=module: Node says which file each require() loads).
 */
async function startBundle(env: Record<string, string>, chunk: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-first-use-'));
  const child = spawn(process.execPath, [join(SERVER, 'bin/berth-server.js')], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      NODE_DEBUG: 'module',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seen: { stderr: string; chunkAt?: number } = { stderr: '' };
  const loads = new RegExp(`load "[^"]*dist/bundle/${chunk.replace('.', '\\.')}"`);
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    seen.stderr += d;
    if (seen.chunkAt === undefined && loads.test(seen.stderr)) seen.chunkAt = Date.now();
  });
  const stop = async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const { url, readyAt } = await new Promise<{ url: string; readyAt: number }>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`not ready within 60 s: ${seen.stderr.slice(-2000)}`)), 60_000);
      child.once('exit', (code) => fail(new Error(`exited with ${code}: ${seen.stderr.slice(-2000)}`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (!line.includes('"msg":"berth control plane ready"')) return;
        clearTimeout(timer);
        ok({ url: JSON.parse(line).address, readyAt: Date.now() });
      });
    });
    return { url, readyAt, seen, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The first /readyz and those after it until the workers backend answers: 200 or 503, never a 500. */
async function readyz(url: string) {
  let body: { ok: boolean; checks: Record<string, string> } | undefined;
  for (const end = Date.now() + 30_000; !body?.ok && Date.now() < end; ) {
    if (body) await new Promise((r) => setTimeout(r, 200));
    const res = await request(`${url}/readyz`);
    assert.ok([200, 503].includes(res.statusCode), `/readyz: ${res.statusCode}`);
    body = (await res.body.json()) as typeof body;
  }
  return body!.checks;
}

test('the bundle holds no undici; it loads beside it at first use and a first /readyz answers', async () => {
  assertFreshBundle();
  assert.ok(!readFileSync(BUNDLE, 'latin1').includes('node_modules/undici/lib/'), 'undici is bundled into main.cjs');
  assert.ok(existsSync(join(SERVER, 'dist/bundle/undici.cjs')));
  // yaml's stand-in names the package's entry; no other of its modules is in the bundle.
  const bundled = [...readFileSync(BUNDLE, 'latin1').matchAll(/"(?:[^"]*\/)?node_modules\/(yaml)\/[^"]*"/g)];
  assert.deepEqual(
    bundled.filter((m) => !m[0].startsWith('"on-first-use:')).map((m) => m[0]),
    [],
  );
  const s = await startBundle({}, 'undici.cjs');
  try {
    assert.ok(s.seen.chunkAt === undefined || s.seen.chunkAt >= s.readyAt, 'undici was loaded before listening');
    // The first request: the agent host may still be starting (503 until it answers).
    assert.deepEqual(await readyz(s.url), { store: 'ok', workers: 'ok', jobs: 'ok' });
    assert.ok(s.seen.chunkAt !== undefined, 'the agent host was asked without loading undici');
    // @fastify/swagger requires yaml (a stand-in now) at its start; the JSON document needs none of it.
    const doc = await request(`${s.url}/api/openapi`);
    assert.equal(doc.statusCode, 200);
    assert.equal(((await doc.body.json()) as { openapi: string }).openapi, '3.1.0');
  } finally {
    await s.stop();
  }
});

test('on WORKER_BACKEND=kubernetes the bundled Kubernetes client, a file of its own with a code cache of its own, answers a first /readyz', async () => {
  assertFreshBundle();
  assert.ok(!readFileSync(BUNDLE, 'latin1').includes('@kubernetes/client-node/dist/'), 'the client is in main.cjs');
  const client = join(SERVER, 'dist/bundle/kubernetes-client.cjs');
  const cacheFiles = cacheFilesFor(client) as string[];
  for (const f of cacheFiles) rmSync(f, { force: true });
  const api = await new FakeKubernetes({ namespaces: ['berth-first-use'] }).start();
  const dir = mkdtempSync(join(tmpdir(), 'berth-first-use-kube-'));
  writeFileSync(join(dir, 'config'), api.kubeconfig('berth-first-use'));
  const env = {
    WORKER_BACKEND: 'kubernetes',
    KUBERNETES_NAMESPACE: 'berth-first-use',
    KUBECONFIG: join(dir, 'config'),
  };
  /** The client's cache file once a start has written it (bin/start-built.js saves it 3 s after the client ran). */
  const written = async () => {
    for (const end = Date.now() + 15_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      const f = cacheFiles.find((c) => existsSync(c));
      if (f) return { file: f, mtimeMs: statSync(f).mtimeMs };
    }
    assert.fail("no code cache was written for the Kubernetes client's file");
  };
  try {
    const s = await startBundle(env, 'kubernetes-client.cjs');
    let cache: { file: string; mtimeMs: number };
    try {
      assert.equal((await readyz(s.url)).workers, 'ok');
      // The ES module package itself never loads: the bundled copy is the only one.
      assert.doesNotMatch(s.seen.stderr, /load "[^"]*node_modules\/@kubernetes\/client-node\//);
      cache = await written();
    } finally {
      await s.stop();
    }
    // The next start runs the client from that cache: a cache used as it was is not rewritten.
    const again = await startBundle(env, 'kubernetes-client.cjs');
    try {
      assert.equal((await readyz(again.url)).workers, 'ok');
      // Waits on the wall clock: the bundle writes its code cache a few seconds after start (a
      // rewrite would show by then); a cache it rightly keeps leaves no event.
      await new Promise((r) => setTimeout(r, 4000));
      assert.equal(statSync(cache.file).mtimeMs, cache.mtimeMs, 'the cache was rejected and rewritten');
    } finally {
      await again.stop();
    }
  } finally {
    for (const f of cacheFiles) rmSync(f, { force: true });
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** What a SQLite store holds: its schema, the migrations it records as applied, and the migration lock row. */
function storeContents(file: string) {
  const db = new SQLite(file, { readonly: true });
  try {
    return {
      schema: db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name').all(),
      applied: db.prepare('SELECT name FROM berth_migrations ORDER BY name').all(),
      lock: db.prepare('SELECT * FROM berth_migrations_lock').all(),
    };
  } finally {
    db.close();
  }
}

test("npm start creates a fresh store from the bundle's schema, the same the migrations make, and still migrates an older one", async () => {
  assertFreshBundle();
  assert.match(readFileSync(BUNDLE, 'latin1'), /<define:__berthFreshSqliteSchema>/, 'the bundle carries no schema');
  const dirs = [1, 2, 3].map(() => mkdtempSync(join(tmpdir(), 'berth-fresh-schema-')));
  try {
    const [migratedDir, freshDir, olderDir] = dirs as [string, string, string];
    // The reference: the migrations themselves (the unbundled store code).
    await (await openStore({ dataDir: migratedDir })).close();
    const expected = storeContents(join(migratedDir, 'berth.sqlite'));
    assert.ok(expected.applied.length > 20);

    const fresh = await startBundle({ DATA_DIR: freshDir }, 'main.cjs');
    await fresh.stop();
    assert.deepEqual(storeContents(join(freshDir, 'berth.sqlite')), expected);

    // A store from before the last migration: it gets that migration, as before.
    const older = await openStore({ dataDir: olderDir });
    await sql`DROP INDEX deployments_pending_created_idx`.execute(older.db);
    await sql`DELETE FROM berth_migrations WHERE name = '0028-pending-slots-index'`.execute(older.db);
    await older.close();
    const upgrade = await startBundle({ DATA_DIR: olderDir }, 'main.cjs');
    await upgrade.stop();
    assert.deepEqual(storeContents(join(olderDir, 'berth.sqlite')), expected);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});

// The image bakes the cache at build time (docker/Dockerfile): its copy is read-only, so a
// container could not keep the cache its first start made.
test('the code cache warmed at build time is written beside the bundle and accepted by the next start', async () => {
  assertFreshBundle();
  const [beside, elsewhere] = cacheFilesFor(BUNDLE) as string[];
  const [clientBeside, clientElsewhere] = cacheFilesFor(join(SERVER, 'dist/bundle/kubernetes-client.cjs')) as string[];
  for (const f of [beside!, elsewhere!, clientBeside!, clientElsewhere!]) rmSync(f, { force: true });
  const warm = spawnSync(process.execPath, [join(SERVER, '../../scripts/warm-code-cache.mjs')], { encoding: 'utf8' });
  assert.equal(warm.status, 0, warm.stderr);
  assert.ok(existsSync(beside!), `no cache beside the bundle: ${warm.stdout}${warm.stderr}`);
  assert.ok(!existsSync(elsewhere!));
  // The Kubernetes client's own file too (a start on that backend reads it: the test above).
  assert.ok(existsSync(clientBeside!), `no cache beside the Kubernetes client: ${warm.stdout}${warm.stderr}`);
  // A start as the image's: the cache is used as it is (V8 did not reject it, the hashes matched).
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-first-use-'));
  try {
    const run = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { runCached } from ${JSON.stringify(pathToFileURL(join(SERVER, 'bin/code-cache.js')).href)};
         const run = runCached(${JSON.stringify(BUNDLE)});
         process.stdout.write(JSON.stringify({ cached: run.cached }) + '\\n');
         process.exit(0);`,
      ],
      {
        encoding: 'utf8',
        env: {
          ...process.env,
          NODE_ENV: 'production',
          PORT: '0',
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
        },
      },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout.trim().split('\n').at(-1)!), { cached: true });
    const client = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { runCached } from ${JSON.stringify(pathToFileURL(join(SERVER, 'bin/code-cache.js')).href)};
         process.stdout.write(JSON.stringify({ cached: runCached(${JSON.stringify(join(SERVER, 'dist/bundle/kubernetes-client.cjs'))}).cached }) + '\\n');`,
      ],
      { encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } },
    );
    assert.equal(client.status, 0, client.stderr);
    assert.deepEqual(JSON.parse(client.stdout.trim()), { cached: true });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
