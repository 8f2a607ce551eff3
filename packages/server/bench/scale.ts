// bench:scale — the control plane against a store of 1,000, 10,000 and 100,000 active deployments
// (BENCH_SCALE_SIZES). The store is grown between sizes by bulk inserts of copies of one deployment
// bought and activated through the app; each size then starts a fresh control plane on it (an
// in-process workers backend that starts empty, as after an agent host's restart) and prints:
// start → ready, idle RSS, the longest event-loop delay while idle (only the reconciler's passes
// run then), GET /assistants/{id} and a list of 10 at a fixed rate (p50/p99), and the control
// plane's CPU per request. SQLite by default; PostgreSQL when BERTH_TEST_DATABASE_URL is set (run
// it under scripts/with-postgres.sh). The first size is every other size's baseline.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { createRuntime, loadConfig, openStore } from '@berth/server';
import { ms, openLoop, report, type LoadResult } from './load.js';
import { rssMb, start, table, withCpu } from './processes.js';
import { benchKey, buyAndActivate } from './slots.js';
import { workersAt } from './workers.js';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const RATE = Number(process.env.BENCH_SCALE_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
// Long enough for at least one reconcile pass (every 5 s by default) after ready.
const IDLE_MS = Number(process.env.BENCH_SCALE_IDLE_MS ?? 6000);
/** The bench user owns this many deployments; the rest belong to other users, this many each. */
const OWN = 100;
const PER_USER = 100;
const databaseUrl = process.env.BERTH_TEST_DATABASE_URL;
const dataDir = mkdtempSync(join(tmpdir(), 'berth-scale-'));
const env = {
  DATA_DIR: dataDir,
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  MANAGED_PROVIDER_API_KEY: 'sk-bench',
  LOG_LEVEL: 'warn',
};

// One deployment bought and activated the way a user does it; its row is the template of the rest.
const seed = await createRuntime(loadConfig(env), {
  workers: workersAt('seed', 'http://127.0.0.1:9'),
  reconcileIntervalMs: 3_600_000,
});
const key = await benchKey(seed);
const deploymentId = await buyAndActivate(seed, key, 'byok', {
  name: 'scale',
  modelProvider: 'openai',
  modelId: 'gpt-4o-mini',
  messengerBotToken: '7000000000:AAbenchmarkBotTokenNotUsedForAnything_x',
  modelApiKey: 'sk-bench',
});
await seed.idle();
await seed.close();

let rows = 1;
let users = 0;
async function grow(n: number) {
  const store = await openStore({ databaseUrl, dataDir });
  const db = store.db;
  const template = await db
    .selectFrom('deployments')
    .selectAll()
    .where('id', '=', deploymentId)
    .executeTakeFirstOrThrow();
  const owner = await db.selectFrom('users').selectAll().where('id', '=', template.user_id).executeTakeFirstOrThrow();
  const base = Date.parse(template.created_at);
  const BATCH = 500;
  while (rows < n) {
    const count = Math.min(BATCH, n - rows);
    const batch = [];
    for (let k = 0; k < count; k++, rows++) {
      let userId = owner.id;
      if (rows >= OWN) {
        const u = Math.floor((rows - OWN) / PER_USER);
        if (u >= users) {
          await db
            .insertInto('users')
            .values({ ...owner, id: `scale-user-${u}`, email: `scale-${u}@example.com` })
            .execute();
          users++;
        }
        userId = `scale-user-${u}`;
      }
      const id = randomUUID();
      batch.push({
        ...template,
        id,
        user_id: userId,
        worker_name: `asst-${id}`,
        worker_url: `http://127.0.0.1:9/agents/asst-${id}`,
        checkout_id: `cs_scale_${rows}`,
        payment_subscription_id: `sub_scale_${rows}`,
        // Older than the template, so the bench user's newest deployment is the one it GETs.
        created_at: new Date(base - rows * 1000).toISOString(),
      });
    }
    await db.transaction().execute(async (tx) => {
      await tx.insertInto('deployments').values(batch).execute();
    });
  }
  await store.close();
}

function lines(child: ChildProcess) {
  const waiting: Array<{ prefix: string; ok: (v: string) => void }> = [];
  createInterface({ input: child.stdio[3] as NodeJS.ReadableStream }).on('line', (line) => {
    const i = waiting.findIndex((w) => line.startsWith(w.prefix));
    if (i < 0) return;
    const [w] = waiting.splice(i, 1);
    w!.ok(line.slice(w!.prefix.length));
  });
  return (prefix: string) => new Promise<string>((ok) => waiting.push({ prefix, ok }));
}

async function loopReport(child: ChildProcess, next: (p: string) => Promise<string>) {
  const line = next('loop ');
  child.kill('SIGUSR2');
  return JSON.parse(await line) as LoopReport;
}

interface LoopReport {
  maxMs: number;
  p99Ms: number;
  passes: number;
  reconcilerMs?: number;
  reconcilerCpuMs?: number;
}

interface SizeResult {
  n: number;
  readyMs: number;
  restoredMs: number;
  restoreLoopMaxMs: number;
  created: number;
  rssMb: number;
  readyCpuMs: number;
  idleLoop: LoopReport;
  loadLoop: LoopReport;
  get: LoadResult & { cpuUsPerRequest: number };
  list: LoadResult & { cpuUsPerRequest: number };
}

const results: SizeResult[] = [];
try {
  for (const n of SIZES) {
    process.stderr.write(`growing the store to ${n} deployments…\n`);
    await grow(n);
    process.stderr.write(`starting the control plane on ${n}…\n`);
    const cp = await start('scale-control-plane.ts', [dataDir, databaseUrl ?? ''], (l) =>
      l.startsWith('{"ready":true') ? l : undefined,
    );
    try {
      const next = lines(cp.child);
      const info = JSON.parse(cp.value) as {
        url: string;
        readyMs: number;
        readyCpuMs: number;
        restoredMs: number;
        restoreLoopMaxMs: number;
        created: number;
      };
      await new Promise((r) => setTimeout(r, IDLE_MS));
      const idleLoop = await loopReport(cp.child, next);
      const rss = rssMb(cp.child.pid!);
      const headers = { 'x-api-key': key };
      const get = await withCpu(cp.child.pid!, () =>
        openLoop(
          { origin: info.url, method: 'GET', path: `/api/v1/assistants/${deploymentId}`, headers },
          RATE,
          SECONDS,
        ),
      );
      const list = await withCpu(cp.child.pid!, () =>
        openLoop({ origin: info.url, method: 'GET', path: '/api/v1/assistants?limit=10', headers }, RATE, SECONDS),
      );
      const loadLoop = await loopReport(cp.child, next);
      results.push({ n, ...info, rssMb: rss, idleLoop, loadLoop, get, list });
    } finally {
      const exited = new Promise((r) => cp.child.once('exit', r));
      cp.child.kill('SIGINT');
      await exited;
    }
  }
} finally {
  if (!process.env.BENCH_SCALE_KEEP) rmSync(dataDir, { recursive: true, force: true });
}

console.log(
  `\nbench:scale (${databaseUrl ? 'PostgreSQL' : 'SQLite'}; ${RATE} req/s for ${SECONDS} s per row after 1 s warm-up; the first size is the baseline)\n`,
);
table(
  [
    'deployments',
    'start→ready ms (CPU ms)',
    'start→workers restored ms (created, loop max)',
    'idle RSS MB',
    'reconciler block ms (CPU)',
    'loop max idle ms (passes)',
    'loop max under load ms (passes)',
    'GET p50/p99 ms',
    'list p50/p99 ms',
    'CPU µs/GET',
    'CPU µs/list',
    'errors',
  ],
  results.map((r) => [
    String(r.n),
    `${r.readyMs.toFixed(0)} (${r.readyCpuMs.toFixed(0)})`,
    `${r.restoredMs.toFixed(0)} (${r.created}, ${r.restoreLoopMaxMs.toFixed(1)})`,
    r.rssMb.toFixed(0),
    `${(Math.max(r.idleLoop.reconcilerMs ?? NaN, r.loadLoop.reconcilerMs ?? NaN)).toFixed(1)} (${Math.max(r.idleLoop.reconcilerCpuMs ?? NaN, r.loadLoop.reconcilerCpuMs ?? NaN).toFixed(1)})`,
    `${r.idleLoop.maxMs.toFixed(1)} (${r.idleLoop.passes})`,
    `${r.loadLoop.maxMs.toFixed(1)} (${r.loadLoop.passes})`,
    `${ms(r.get.p50)}/${ms(r.get.p99)}`,
    `${ms(r.list.p50)}/${ms(r.list.p99)}`,
    r.get.cpuUsPerRequest.toFixed(0),
    r.list.cpuUsPerRequest.toFixed(0),
    String(r.get.errors + r.list.errors),
  ]),
);
const first = results[0]!;
const last = results[results.length - 1]!;
// The reconciler's own longest block where it reports one (it yields every few ms); the whole
// event loop's longest delay otherwise (today's pass is one synchronous read). Both are printed.
const loopMax = Math.max(
  ...results.map((r) =>
    r.idleLoop.reconcilerMs === undefined
      ? Math.max(r.idleLoop.maxMs, r.loadLoop.maxMs)
      : Math.max(r.idleLoop.reconcilerMs, r.loadLoop.reconcilerMs ?? 0),
  ),
);
console.log(
  `\nGET p99 at ${last.n}: ${(last.get.p99 / first.get.p99).toFixed(2)} × its value at ${first.n} (goal ≤ 2); list of 10: ${(last.list.cpuUsPerRequest / last.get.cpuUsPerRequest).toFixed(2)} × a GET's CPU (goal ≤ 1.5)`,
);
report('scale', { dialect: databaseUrl ? 'postgres' : 'sqlite', results });
console.log(
  `bench:scale n=${first.n} get_p99_ms=${first.get.p99.toFixed(2)} n=${last.n} get_p99_ms=${last.get.p99.toFixed(2)} loop_max_ms=${loopMax.toFixed(1)} rss_mb=${last.rssMb.toFixed(0)} ready_ms=${last.readyMs.toFixed(0)}`,
);
process.exit(0);
