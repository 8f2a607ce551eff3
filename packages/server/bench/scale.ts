// bench:scale — the control plane against stores of 1,000, 10,000 and 100,000 active deployments
// (BENCH_SCALE_SIZES). Each size has its own store, grown by bulk inserts of copies of one
// deployment bought and activated through the app, and its own control plane (an in-process
// workers backend that starts empty, as after an agent host's restart), started one after another.
// Printed per size: start → ready (answering; its CPU time) and → workers restored, idle RSS, the
// reconciler's longest block between two yields next to the whole event loop's longest delay,
// GET /assistants/{id} and a list of 10 at a fixed rate — the sizes side by side, so each sees the
// same moments of the shared machine — and the control plane's CPU per request. SQLite by default;
// PostgreSQL when BERTH_TEST_DATABASE_URL is set (scripts/with-postgres.sh); both, side by side in
// one run, with BENCH_SCALE_STORES=sqlite,postgres (under with-postgres.sh), which adds
// PostgreSQL's CPU per GET next to SQLite's. The first size of each store is its other sizes' baseline.
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { ms, openLoopSideBySide, report, type LoadResult } from './load.js';
import { cpuMs, rssMb, start, table } from './processes.js';
import { defaultStore, type Sized, type Store, seed } from './scale-seed.js';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const STORES = (process.env.BENCH_SCALE_STORES?.split(',') ?? [defaultStore]) as Store[];
const RATE = Number(process.env.BENCH_SCALE_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
// Long enough for at least one reconcile pass (every 5 s by default) after ready.
const IDLE_MS = Number(process.env.BENCH_SCALE_IDLE_MS ?? 6000);

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

interface StartInfo {
  url: string;
  readyMs: number;
  readyCpuMs: number;
  restoredMs: number;
  restoreLoopMaxMs: number;
  restoreBlock: { ms: number; cpuMs: number };
  created: number;
}

interface SizeResult extends StartInfo {
  n: number;
  store: Store;
  rssMb: number;
  idleLoop: LoopReport;
  loadLoop: LoopReport;
  get: LoadResult & { cpuUsPerRequest: number };
  list: LoadResult & { cpuUsPerRequest: number };
}

const sized: Sized[] = [];
for (const store of STORES)
  for (const n of SIZES) {
    process.stderr.write(`growing a ${store} store to ${n} deployments…\n`);
    sized.push(await seed(n, store));
  }
const cps: Array<{ s: Sized; child: ChildProcess; next: (p: string) => Promise<string>; info: StartInfo }> = [];
const results: SizeResult[] = [];
try {
  // Started one after another (each start-up measured alone), then measured side by side: every
  // size sees the same moments of the shared machine.
  for (const s of sized) {
    process.stderr.write(`starting the control plane on ${s.store} ${s.n}…\n`);
    const cp = await start('scale-control-plane.ts', [s.dataDir, s.databaseUrl ?? ''], (l) =>
      l.startsWith('{"ready":true') ? l : undefined,
    );
    cps.push({ s, child: cp.child, next: lines(cp.child), info: JSON.parse(cp.value) as StartInfo });
    // Its steady passes only from here (the start-up pass is reported in the start line).
    await loopReport(cp.child, cps[cps.length - 1]!.next);
  }
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idle = await Promise.all(cps.map((c) => loopReport(c.child, c.next)));
  const rss = cps.map((c) => rssMb(c.child.pid!));
  const sideBySide = async (path: (s: Sized) => string) => {
    const before = cps.map((c) => cpuMs(c.child.pid!));
    const r = await openLoopSideBySide(
      cps.map((c) => ({
        origin: c.info.url,
        method: 'GET' as const,
        path: path(c.s),
        headers: { 'x-api-key': c.s.key },
      })),
      RATE,
      SECONDS,
    );
    return r.map((x, i) => ({ ...x, cpuUsPerRequest: ((cpuMs(cps[i]!.child.pid!) - before[i]!) * 1000) / x.sent }));
  };
  process.stderr.write(`GET at ${RATE} req/s per size, side by side…\n`);
  const gets = await sideBySide((s) => `/api/v1/assistants/${s.deploymentId}`);
  process.stderr.write(`list of 10 at ${RATE} req/s per size, side by side…\n`);
  const lists = await sideBySide(() => '/api/v1/assistants?limit=10');
  const load = await Promise.all(cps.map((c) => loopReport(c.child, c.next)));
  cps.forEach((c, i) =>
    results.push({
      n: c.s.n,
      store: c.s.store,
      ...c.info,
      rssMb: rss[i]!,
      idleLoop: idle[i]!,
      loadLoop: load[i]!,
      get: gets[i]!,
      list: lists[i]!,
    }),
  );
} finally {
  for (const c of cps) {
    const exited = new Promise((r) => c.child.once('exit', r));
    c.child.kill('SIGINT');
    await exited;
  }
  if (!process.env.BENCH_SCALE_KEEP) for (const s of sized) rmSync(s.dataDir, { recursive: true, force: true });
}

console.log(
  `\nbench:scale (${STORES.join(' and ')}; the unbundled dist/ under tsx's loader; ${RATE} req/s for ${SECONDS} s per size, the sizes side by side, after 1 s warm-up; the first size of each store is the baseline)\n`,
);
table(
  [
    'store',
    'deployments',
    'start→ready ms (CPU ms)',
    'start→workers restored ms (created; its longest block ms, CPU)',
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
    r.store,
    String(r.n),
    `${r.readyMs.toFixed(0)} (${r.readyCpuMs.toFixed(0)})`,
    `${r.restoredMs.toFixed(0)} (${r.created}; ${r.restoreBlock?.ms.toFixed(1)}, ${r.restoreBlock?.cpuMs.toFixed(1)})`,
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
// One summary and one last line per store (the bars read the last line of each).
const lastLines: string[] = [];
for (const store of STORES) {
  const of = results.filter((r) => r.store === store);
  const first = of[0]!;
  const last = of[of.length - 1]!;
  // The reconciler's own longest block where it reports one (it yields every few ms); the whole
  // event loop's longest delay otherwise (today's pass is one synchronous read). Both are printed.
  const loopMax = Math.max(
    ...of.map((r) =>
      r.idleLoop.reconcilerMs === undefined
        ? Math.max(r.idleLoop.maxMs, r.loadLoop.maxMs)
        : Math.max(r.idleLoop.reconcilerMs, r.loadLoop.reconcilerMs ?? 0),
    ),
  );
  console.log(
    `\n${store}: GET p99 at ${last.n}: ${(last.get.p99 / first.get.p99).toFixed(2)} × its value at ${first.n} (goal ≤ 2); list of 10: ${(last.list.cpuUsPerRequest / last.get.cpuUsPerRequest).toFixed(2)} × a GET's CPU (goal ≤ 1.5)`,
  );
  lastLines.push(
    `bench:scale${STORES.length > 1 ? ` store=${store}` : ''} n=${first.n} get_p99_ms=${first.get.p99.toFixed(2)} n=${last.n} get_p99_ms=${last.get.p99.toFixed(2)} loop_max_ms=${loopMax.toFixed(1)} rss_mb=${last.rssMb.toFixed(0)} ready_ms=${last.readyMs.toFixed(0)}`,
  );
}
if (STORES.includes('sqlite') && STORES.includes('postgres'))
  for (const n of SIZES) {
    const cpu = (store: Store) => results.find((r) => r.store === store && r.n === n)!.get.cpuUsPerRequest;
    console.log(
      `CPU per GET at ${n}: PostgreSQL ${cpu('postgres').toFixed(0)} µs, SQLite ${cpu('sqlite').toFixed(0)} µs: ${(cpu('postgres') / cpu('sqlite')).toFixed(2)} × (goal ≤ 2)`,
    );
  }
report('scale', { dialects: STORES, results });
for (const line of lastLines) console.log(line);
process.exit(0);
