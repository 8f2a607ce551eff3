// bench:scale — the shipped control plane against stores of 1,000, 10,000 and 100,000 active
// deployments (BENCH_SCALE_SIZES). Each size has its own store, grown by bulk inserts of copies of
// one deployment bought and activated through the app, its own cluster (scale-cluster.ts: a
// FakeKubernetes that already runs every deployment's worker, as after a control-plane restart
// with the cluster intact) and its own control plane, started as `npm start` starts it
// (bin/berth-server.js: the bundle) with WORKER_BACKEND=kubernetes (dedicated placement) and a
// sampler of the event loop preloaded (loop-probe.mjs), one after another. Printed per size:
// start → listening (the process's own start-up mark), → the first 200 from /readyz and what it
// said meanwhile, → workers restored (/readyz's restore phase), idle RSS, the event loop's
// longest delay during the start-up pass, idle (steady passes) and under load, GET
// /assistants/{id} and a list of 10 at a fixed rate — the sizes side by side, so each sees the
// same moments of the shared machine — and the control plane's CPU per request. SQLite by default;
// PostgreSQL when BERTH_TEST_DATABASE_URL is set (scripts/with-postgres.sh); both, side by side in
// one run, with BENCH_SCALE_STORES=sqlite,postgres (under with-postgres.sh), which adds
// PostgreSQL's CPU per GET next to SQLite's. The first size of each store is its other sizes'
// baseline. Build first (`npm run build`).
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { ms, openLoopSideBySide, report, type LoadResult } from './load.js';
import { cpuMs, rssMb, start, table } from './processes.js';
import { BENCH_SECRETS_KEY, defaultStore, type Sized, type Store, seed } from './scale-seed.js';
import { MARGIN_MS } from '../src/reconciler/desired-index.js';

const HERE = import.meta.dirname;
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const STORES = (process.env.BENCH_SCALE_STORES?.split(',') ?? [defaultStore]) as Store[];
const RATE = Number(process.env.BENCH_SCALE_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
// Long enough for two steady reconcile passes (every 5 s by default) after the start-up pass.
const IDLE_MS = Number(process.env.BENCH_SCALE_IDLE_MS ?? 11_000);
const START_TIMEOUT_MS = Number(process.env.BENCH_START_TIMEOUT_MS ?? 120_000);
// The control planes' reconcile interval (RECONCILE_INTERVAL_SECONDS, not set here: its default).
const INTERVAL_MS = 5_000;
const NAMESPACE = 'berth-workers';
const BIN = resolve(HERE, '../bin/berth-server.js');
// bin/start-built.js is plain JavaScript without types: the check npm start makes.
const { freshBundle } = (await import('../bin/start-built.js' as string)) as {
  freshBundle: (bundle: URL, builtFrom: URL[]) => URL | undefined;
};
const bundled = Boolean(
  freshBundle(new URL('../dist/bundle/main.cjs', import.meta.url), [
    new URL('../dist/.tsbuildinfo', import.meta.url),
    new URL('../../contracts/dist/.tsbuildinfo', import.meta.url),
  ]),
);

interface LoopReport {
  maxMs: number;
  p99Ms: number;
  /** The most CPU between two turns of the probe's 2 ms timer (the process's: V8's helper threads too). */
  cpuMaxMs: number;
  /** The same for the main thread alone (Linux): at most how long the loop's own thread ran between two turns of the timer. */
  threadCpuMaxMs?: number;
  memory: { rss: number; heapUsed: number; heapTotal: number; external: number };
}
interface Mark {
  ms: number;
  cpuMs: number;
}
interface Readyz {
  ok: boolean;
  restore?: { phase: string; done: number; total: number };
}

interface StartInfo {
  url: string;
  listening: Mark;
  readyMs: number;
  /** What /readyz said at its first 200, and the statuses it answered before. */
  firstReady: Readyz;
  before200: number[];
  restoredMs: number;
  restoredCpuMs: number;
  /** The start-up pass's own log line ("workers reconciled", restore: true). */
  restorePass?: { started: number; longestBlockMs: number; longestBlockCpuMs: number };
  restoreLoop: LoopReport;
}

interface SizeResult extends StartInfo {
  n: number;
  store: Store;
  rssMb: number;
  /**
   * RSS once the GET and list rows are done (~15 s after the idle rows'): whether V8's memory
   * reducer had given the start-up pass's heap back by the idle reading is a matter of seconds
   * (0027, round 17), so both readings are printed.
   */
  rssAfterMb: number;
  /** CPU per second while idle (steady passes, timers), ms. */
  idleCpuMsPerS: number;
  idleLoop: LoopReport;
  loadLoop: LoopReport;
  get: LoadResult & { cpuUsPerRequest: number };
  list: LoadResult & { cpuUsPerRequest: number };
}

interface ControlPlane {
  s: Sized;
  cluster: ChildProcess;
  child: ChildProcess;
  loop: () => Promise<LoopReport>;
  info: StartInfo;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the shipped control plane on a grown store against its cluster; resolves once its workers are restored. */
async function startControlPlane(s: Sized, kubeconfig: string): Promise<Omit<ControlPlane, 'cluster' | 's'>> {
  const t0 = performance.now();
  // BENCH_CPU_PROF=<dir>: a CPU profile of each control plane, written when it exits.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_NODE_FLAGS: more flags for each control plane's node (e.g. --trace-gc); what they print
  // on stdout goes to stderr, marked with the size.
  const flags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...prof, ...flags, '--import', resolve(HERE, 'loop-probe.mjs'), BIN], {
    stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: s.dataDir,
      ...(s.databaseUrl ? { DATABASE_URL: s.databaseUrl, SECRETS_KEY: BENCH_SECRETS_KEY } : {}),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      WORKER_BACKEND: 'kubernetes',
      KUBERNETES_PLACEMENT: 'dedicated',
      KUBERNETES_NAMESPACE: NAMESPACE,
      KUBECONFIG: kubeconfig,
      MANAGED_PROVIDER_API_KEY: 'sk-bench',
      RATE_LIMIT_PER_MINUTE: '1000000',
      CHAT_CONCURRENCY_PER_KEY: '0',
      CHAT_CONCURRENCY_PER_ASSISTANT: '0',
    },
  });
  const waiting: Array<(l: string) => void> = [];
  createInterface({ input: child.stdio[3] as NodeJS.ReadableStream }).on('line', (l) => waiting.shift()?.(l));
  const loop = async () => {
    const line = new Promise<string>((ok) => waiting.push(ok));
    child.kill('SIGUSR2');
    return JSON.parse((await line).replace(/^loop /, '')) as LoopReport;
  };
  let listening: { url: string; mark: Mark } | undefined;
  let restorePass: StartInfo['restorePass'];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) {
      if (flags.length) process.stderr.write(`[${s.store} ${s.n}] ${line}\n`);
      return;
    }
    const l = JSON.parse(line) as { msg?: string; address?: string; startup?: { listening: Mark }; restore?: boolean };
    if (l.msg === 'berth control plane ready' && l.address && l.startup) {
      listening = { url: l.address, mark: l.startup.listening };
      // The probe's loop figures run from the process's start, module loading and the app's build
      // included (start→listening's own column); reset here, the next report is listening→restored.
      void loop();
    }
    if (l.msg === 'workers reconciled' && l.restore) restorePass = l as unknown as StartInfo['restorePass'];
  });
  const exited = new Promise<never>((_, fail) =>
    child.once('exit', (code) => fail(new Error(`the control plane exited with ${code}`))),
  );
  const deadline = t0 + START_TIMEOUT_MS;
  const poll = async (): Promise<{ status: number; body: Readyz } | undefined> => {
    while (!listening) {
      if (performance.now() > deadline) throw new Error('the control plane did not listen in time');
      await sleep(5);
    }
    const res = await request(`${listening.url}/readyz`).catch(() => undefined);
    if (!res) return undefined;
    return { status: res.statusCode, body: (await res.body.json()) as Readyz };
  };
  const run = async (): Promise<StartInfo> => {
    const before200: number[] = [];
    let readyMs = 0;
    let firstReady: Readyz | undefined;
    for (;;) {
      if (performance.now() > deadline) throw new Error('the control plane was not restored in time');
      const r = await poll();
      if (r?.status === 200 && !firstReady) {
        readyMs = performance.now() - t0;
        firstReady = r.body;
      } else if (r && !firstReady) before200.push(r.status);
      if (r?.body.restore?.phase === 'restored') {
        const restoredMs = performance.now() - t0;
        const restoredCpuMs = cpuMs(child.pid!);
        // The start-up pass's line is written just before the phase turns.
        await sleep(50);
        return {
          url: listening!.url,
          listening: listening!.mark,
          readyMs,
          firstReady: firstReady ?? r.body,
          before200,
          restoredMs,
          restoredCpuMs,
          restorePass,
          restoreLoop: await loop(),
        };
      }
      await sleep(25);
    }
  };
  const info = await Promise.race([run(), exited]);
  return { child, loop, info };
}

const sized: Sized[] = [];
for (const store of STORES)
  for (const n of SIZES) {
    process.stderr.write(`growing a ${store} store to ${n} deployments…\n`);
    sized.push(await seed(n, store));
  }
const cps: ControlPlane[] = [];
const clusters: ChildProcess[] = [];
const results: SizeResult[] = [];
let waitedMs = 0;
let sinceWriteMs = 0;
try {
  // Started one after another (each start-up measured alone), then measured side by side: every
  // size sees the same moments of the shared machine.
  for (const s of sized) {
    process.stderr.write(`a cluster running ${s.n} workers…\n`);
    const cluster = await start('scale-cluster.ts', [s.dataDir, s.databaseUrl ?? '', NAMESPACE], (l) =>
      l.startsWith('{"kubeconfig"') ? l : undefined,
    );
    clusters.push(cluster.child);
    const { kubeconfig } = JSON.parse(cluster.value) as { kubeconfig: string };
    process.stderr.write(`starting the control plane on ${s.store} ${s.n}…\n`);
    cps.push({ s, cluster: cluster.child, ...(await startControlPlane(s, kubeconfig)) });
  }
  // The steady state: a steady pass reads the rows written since the last pass less the desired-state
  // index's margin (desired-index.ts), so for MARGIN_MS after the grow (which writes every row at
  // once, with one updated_at) each pass re-reads the whole store. A pass that starts after that
  // still reads them (its watermark is the pass before's); the one after it does not. Passes take
  // well under an interval here, so three intervals past the margin every control plane is past it.
  const quietAt = Math.max(...sized.map((s) => s.lastWriteMs)) + MARGIN_MS + 3 * INTERVAL_MS;
  waitedMs = Math.max(0, quietAt - Date.now());
  process.stderr.write(
    `waiting ${(waitedMs / 1000).toFixed(1)} s for the grow's writes to leave the index's margin…\n`,
  );
  await sleep(waitedMs);
  await Promise.all(cps.map((c) => c.loop()));
  sinceWriteMs = Date.now() - Math.max(...sized.map((s) => s.lastWriteMs));
  const idleFrom = cps.map((c) => cpuMs(c.child.pid!));
  await sleep(IDLE_MS);
  const idle = await Promise.all(cps.map((c) => c.loop()));
  // What the steady passes cost with no request (the backend's list, mostly): at 50 req/s and
  // 100,000 deployments it is most of the CPU per request below, in whole passes per row.
  const idleCpu = cps.map((c, i) => (cpuMs(c.child.pid!) - idleFrom[i]!) / (IDLE_MS / 1000));
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
  const load = await Promise.all(cps.map((c) => c.loop()));
  const rssAfter = cps.map((c) => rssMb(c.child.pid!));
  cps.forEach((c, i) =>
    results.push({
      n: c.s.n,
      store: c.s.store,
      ...c.info,
      rssMb: rss[i]!,
      rssAfterMb: rssAfter[i]!,
      idleCpuMsPerS: idleCpu[i]!,
      idleLoop: idle[i]!,
      loadLoop: load[i]!,
      get: gets[i]!,
      list: lists[i]!,
    }),
  );
} finally {
  for (const child of [...cps.map((c) => c.child), ...clusters]) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
  }
  if (!process.env.BENCH_SCALE_KEEP) for (const s of sized) rmSync(s.dataDir, { recursive: true, force: true });
}

console.log(
  `\nbench:scale (${STORES.join(' and ')}; the control plane as npm start runs it: ${bundled ? 'the bundle' : 'dist/main.js (no fresh bundle: npm run build)'}, WORKER_BACKEND=kubernetes, dedicated placement, against a FakeKubernetes already running every worker; ${RATE} req/s for ${SECONDS} s per size, the sizes side by side, after 1 s warm-up; the first size of each store is the baseline)\n`,
);
console.log(
  `The idle and request rows start ${(sinceWriteMs / 1000).toFixed(1)} s after the grow's last write (waited ${(waitedMs / 1000).toFixed(1)} s after the last start-up so that steady passes read only what changed, as on a store not written in bulk within the last ${MARGIN_MS / 1000 + (3 * INTERVAL_MS) / 1000} s).\n`,
);
/** A loop report's maxima: wall clock, process CPU, and the main thread's CPU where known. */
const loopFigures = (l: LoopReport) =>
  `${l.maxMs.toFixed(1)}, ${l.cpuMaxMs.toFixed(1)}, ${l.threadCpuMaxMs == null ? '—' : l.threadCpuMaxMs.toFixed(1)}`;
table(
  [
    'store',
    'deployments',
    'start→listening ms (CPU)',
    'start→/readyz 200 ms (said)',
    'start→restored ms (CPU; created)',
    'loop max restoring ms, CPU, main thread (pass block ms, CPU)',
    'idle RSS MB (V8 heap used/reserved)',
    'RSS MB after the request rows',
    'loop max idle ms, CPU, main thread (p99)',
    'idle CPU ms/s',
    'loop max under load ms, CPU, main thread',
    'GET p50/p99 ms',
    'list p50/p99 ms',
    'CPU µs/GET',
    'CPU µs/list',
    'errors',
  ],
  results.map((r) => [
    r.store,
    String(r.n),
    `${r.listening.ms} (${r.listening.cpuMs})`,
    `${r.readyMs.toFixed(0)} (${r.before200.length ? `${r.before200.join(',')} before; ` : ''}${r.firstReady.restore ? `${r.firstReady.restore.phase} ${r.firstReady.restore.done}/${r.firstReady.restore.total}` : 'no restore'})`,
    `${r.restoredMs.toFixed(0)} (${r.restoredCpuMs.toFixed(0)}; ${r.restorePass?.started ?? '?'})`,
    `${loopFigures(r.restoreLoop)} (${r.restorePass?.longestBlockMs.toFixed(1)}, ${r.restorePass?.longestBlockCpuMs.toFixed(1)})`,
    `${r.rssMb.toFixed(0)} (${r.idleLoop.memory.heapUsed}/${r.idleLoop.memory.heapTotal})`,
    r.rssAfterMb.toFixed(0),
    `${loopFigures(r.idleLoop)} (${r.idleLoop.p99Ms.toFixed(1)})`,
    r.idleCpuMsPerS.toFixed(0),
    loopFigures(r.loadLoop),
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
  // The longest the event loop was held while idle (steady passes, the job runner, timers, the
  // collector's pauses; no requests), in the main thread's CPU: what the shared machine's
  // scheduling does not inflate, nor V8's helper threads, whose concurrent marking the process's
  // CPU counts though the loop turns meanwhile (decision 0027, round 20). Without the thread's
  // figure (not Linux), the process's CPU, an upper bound. Both and the wall clock are printed
  // beside it; under load the requests' own work counts too.
  const loopMax = Math.max(...of.map((r) => r.idleLoop.threadCpuMaxMs ?? r.idleLoop.cpuMaxMs));
  console.log(
    `\n${store}: GET p99 at ${last.n}: ${(last.get.p99 / first.get.p99).toFixed(2)} × its value at ${first.n} (goal ≤ 2); list of 10: ${(last.list.cpuUsPerRequest / last.get.cpuUsPerRequest).toFixed(2)} × a GET's CPU (goal ≤ 1.5; at ${first.n}, where the passes cost ${first.idleCpuMsPerS.toFixed(0)} ms/s of CPU against ${last.idleCpuMsPerS.toFixed(0)}: ${(first.list.cpuUsPerRequest / first.get.cpuUsPerRequest).toFixed(2)} ×)`,
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
report('scale', { dialects: STORES, bundled, waitedMs, sinceWriteMs, results });
for (const line of lastLines) console.log(line);
process.exit(0);
