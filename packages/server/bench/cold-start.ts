// bench:cold-start — from spawning the process to its first answer (GET /healthz, or / for the
// baseline), for Berth's built control plane on a fresh store (the default local workers backend,
// SQLite in a new DATA_DIR) as `npm start` runs it (bin/berth-server.js: the CommonJS bundle with
// the V8 code cache an earlier start wrote, and the first start after a build, without one) and
// unbundled (`node dist/main.js`), next to Fastify's hello world, alternated in the same
// run (BENCH_COLD_RUNS each, 5 by default), and on WORKER_BACKEND=kubernetes; medians, with the child's CPU time by then, and where
// it went: each server prints its start-up marks (Berth in its "ready" log line, main.ts), CPU
// after loading its code, after building the app, once listening. Build first (`npm run build`:
// the bundle is made after tsc).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { FakeKubernetes } from '@berth/testkit';
import { freePort, table } from './processes.js';
// @ts-expect-error plain JavaScript without declarations (bin/)
import { cacheFilesFor } from '../bin/code-cache.js';

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 5);
const HERE = import.meta.dirname;

function cpuMsOf(pid: number) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

// BENCH_COLD_COMPARE=<a bundle's main.js or main.cjs> adds a row for it, started as `npm start` starts a bundle
// (bin/start-built.js): an earlier build's, for a before/after from the same run.
const COMPARE = process.env.BENCH_COLD_COMPARE && resolve(process.env.BENCH_COLD_COMPARE);
const ENTRIES = {
  start: [resolve(HERE, '../bin/berth-server.js')],
  unbundled: [resolve(HERE, '../dist/main.js')],
  compare: [
    '--input-type=module',
    '-e',
    `import { startBuilt } from ${JSON.stringify(resolve(HERE, '../bin/start-built.js'))}; await startBuilt(new URL(${JSON.stringify(`file://${COMPARE}`)}));`,
  ],
};

interface Mark {
  ms: number;
  cpuMs: number;
}
interface Start extends Mark {
  /** CPU ms spent loading the code, building the app, listening, and after listening until the first answer. */
  phases: [number, number, number, number];
}

/** The start-up marks a server printed on stdout (one JSON line with `startup`). */
function phasesOf(stdout: string, cpuMs: number): Start['phases'] {
  const line = stdout.split('\n').find((l) => l.includes('"startup"'));
  if (!line) throw new Error(`no start-up marks in the output: ${stdout.slice(0, 500)}`);
  const { loaded, built, listening } = (JSON.parse(line) as { startup: Record<string, Mark> }).startup as Record<
    'loaded' | 'built' | 'listening',
    Mark
  >;
  return [
    loaded.cpuMs,
    built.cpuMs - loaded.cpuMs,
    listening.cpuMs - built.cpuMs,
    Math.max(0, cpuMs - listening.cpuMs),
  ];
}

const BUNDLE = resolve(HERE, '../dist/bundle/main.cjs');
const CACHE_FILES = cacheFilesFor(BUNDLE) as string[];

// WORKER_BACKEND=kubernetes against a FakeKubernetes (the API over HTTP on loopback): the backend
// loads the Kubernetes client before listening (BENCH_COLD_KUBERNETES=0 leaves these rows out).
const KUBE = process.env.BENCH_COLD_KUBERNETES !== '0';
const kubeApi = KUBE ? await new FakeKubernetes({ namespaces: ['berth-cold'] }).start() : undefined;
const kubeDir = mkdtempSync(join(tmpdir(), 'berth-cold-kube-'));
if (kubeApi) writeFileSync(join(kubeDir, 'config'), kubeApi.kubeconfig('berth-cold'));
const KUBE_ENV = {
  WORKER_BACKEND: 'kubernetes',
  KUBERNETES_NAMESPACE: 'berth-cold',
  KUBECONFIG: join(kubeDir, 'config'),
};

async function coldStart(
  what: keyof typeof ENTRIES | 'hello',
  o: { stayMs?: number; env?: Record<string, string> } = {},
): Promise<Start> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-cold-'));
  const args = what === 'hello' ? [resolve(HERE, 'hello-port.mjs'), String(port)] : ENTRIES[what];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'ignore'],
    // info: the "ready" line carries the start-up marks.
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...o.env },
  });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  try {
    for (;;) {
      try {
        const res = await request(`http://127.0.0.1:${port}${what === 'hello' ? '/' : '/healthz'}`);
        await res.body.dump();
        if (res.statusCode === 200) break;
      } catch {
        /* not listening yet */
      }
      if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const ms = performance.now() - t0;
    const cpuMs = cpuMsOf(child.pid!);
    // The marks are written just after listening: wait for the line if the answer came first.
    for (let i = 0; i < 200 && !stdout.includes('"startup"'); i++) await new Promise((r) => setTimeout(r, 5));
    if (o.stayMs) await new Promise((r) => setTimeout(r, o.stayMs));
    return { ms, cpuMs, phases: phasesOf(stdout, cpuMs) };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (!existsSync(ENTRIES.unbundled[0]!) || !existsSync(BUNDLE)) throw new Error('build first: npm run build');
// One start that stays up until it has written the code cache (bin/start-built.js), kept for the
// cached rows; the first-start rows run without it.
for (const f of CACHE_FILES) rmSync(f, { force: true });
await coldStart('start', { stayMs: 4000 });
// The compared bundle runs with its own code cache too (written beside it by this start).
if (COMPARE?.endsWith('.cjs')) await coldStart('compare', { stayMs: 4000 });
const cacheFile = CACHE_FILES.find((f) => existsSync(f));
if (!cacheFile) throw new Error('npm start wrote no code cache');
// On WORKER_BACKEND=kubernetes the client's own file has a code cache of its own, written the same
// way (kept for every Kubernetes row: the cache a restart has).
const KUBE_CACHE_FILES = cacheFilesFor(resolve(HERE, '../dist/bundle/kubernetes-client.cjs')) as string[];
if (KUBE) {
  for (const f of KUBE_CACHE_FILES) rmSync(f, { force: true });
  await coldStart('start', { env: KUBE_ENV, stayMs: 4000 });
  if (!KUBE_CACHE_FILES.some((f) => existsSync(f)))
    throw new Error("npm start wrote no code cache for the Kubernetes client's file");
}
const cache = readFileSync(cacheFile);
const withCache = (on: boolean) => {
  for (const f of CACHE_FILES) rmSync(f, { force: true });
  if (on) writeFileSync(cacheFile, cache);
};
const first: Start[] = [];
const berth: Start[] = [];
const unbundled: Start[] = [];
const hello: Start[] = [];
const compare: Start[] = [];
const kube: Start[] = [];
const compareKube: Start[] = [];
for (let i = 0; i < RUNS; i++) {
  // Alternated, so a busy moment of the machine lands on each.
  withCache(true);
  berth.push(await coldStart('start'));
  withCache(false);
  first.push(await coldStart('start'));
  unbundled.push(await coldStart('unbundled'));
  if (COMPARE) compare.push(await coldStart('compare'));
  if (KUBE) {
    withCache(true); // the bundle's code cache, and the Kubernetes client's own
    kube.push(await coldStart('start', { env: KUBE_ENV }));
  }
  if (KUBE && COMPARE) compareKube.push(await coldStart('compare', { env: KUBE_ENV }));
  hello.push(await coldStart('hello'));
}
await kubeApi?.stop();
rmSync(kubeDir, { recursive: true, force: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const row = (name: string, r: typeof berth) => [
  name,
  median(r.map((x) => x.ms)).toFixed(0),
  median(r.map((x) => x.cpuMs)).toFixed(0),
  ...[0, 1, 2, 3].map((i) => median(r.map((x) => x.phases[i]!)).toFixed(0)),
];
console.log(`\nbench:cold-start (${RUNS} runs each, alternated; medians)\n`);
table(
  [
    'server',
    'spawn → first answer ms',
    'CPU ms by then',
    'CPU: loading code',
    'building app',
    'listen',
    'listen → answer',
  ],
  [
    row('Fastify hello world (baseline)', hello),
    row('Berth, node dist/main.js (unbundled)', unbundled),
    ...(COMPARE ? [row(`Berth, bundle ${COMPARE.split('/').slice(-2).join('/')}`, compare)] : []),
    row('Berth, npm start, first start after a build (no code cache)', first),
    row('Berth, npm start (bundled, code cache), fresh store', berth),
    ...(KUBE && COMPARE
      ? [row(`Berth, bundle ${COMPARE.split('/').slice(-2).join('/')}, WORKER_BACKEND=kubernetes`, compareKube)]
      : []),
    ...(KUBE ? [row('Berth, npm start, WORKER_BACKEND=kubernetes', kube)] : []),
  ],
);
withCache(true);
console.log(
  `\nBerth (npm start): ${(median(berth.map((x) => x.ms)) / median(hello.map((x) => x.ms))).toFixed(2)} × hello world's cold start, ${(median(berth.map((x) => x.cpuMs)) / median(hello.map((x) => x.cpuMs))).toFixed(2)} × its CPU (goal: ≤ 0.5 s)`,
);
