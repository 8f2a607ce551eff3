// bench:cold-start — from spawning the process to its first answer (GET /healthz, or / for the
// baseline), for Berth's built control plane on a fresh store (the default local workers backend,
// SQLite in a new DATA_DIR) as `npm start` runs it (bin/berth-server.js: the bundle, source maps
// on) and unbundled (`node dist/main.js`), next to Fastify's hello world, alternated in the same
// run (BENCH_COLD_RUNS each, 5 by default); medians, with the child's CPU time by then. Build
// first (`npm run build`: the bundle is made after tsc).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { table } from './processes.js';

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 5);
const HERE = import.meta.dirname;

function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

function cpuMsOf(pid: number) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

const ENTRIES = {
  start: [resolve(HERE, '../bin/berth-server.js')],
  unbundled: [resolve(HERE, '../dist/main.js')],
};

async function coldStart(what: 'start' | 'unbundled' | 'hello'): Promise<{ ms: number; cpuMs: number }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-cold-'));
  const args = what === 'hello' ? [resolve(HERE, 'hello-port.mjs'), String(port)] : ENTRIES[what];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: 'ignore',
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
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
    return { ms: performance.now() - t0, cpuMs: cpuMsOf(child.pid!) };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (!existsSync(ENTRIES.unbundled[0]!)) throw new Error('build first: npm run build');
const berth: Array<{ ms: number; cpuMs: number }> = [];
const unbundled: Array<{ ms: number; cpuMs: number }> = [];
const hello: Array<{ ms: number; cpuMs: number }> = [];
for (let i = 0; i < RUNS; i++) {
  // Alternated, so a busy moment of the machine lands on each.
  berth.push(await coldStart('start'));
  unbundled.push(await coldStart('unbundled'));
  hello.push(await coldStart('hello'));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const row = (name: string, r: typeof berth) => [
  name,
  median(r.map((x) => x.ms)).toFixed(0),
  median(r.map((x) => x.cpuMs)).toFixed(0),
];
console.log(`\nbench:cold-start (${RUNS} runs each, alternated; medians)\n`);
table(
  ['server', 'spawn → first answer ms', 'CPU ms by then'],
  [
    row('Fastify hello world (baseline)', hello),
    row('Berth, node dist/main.js (unbundled)', unbundled),
    row('Berth, npm start (bundled), fresh store', berth),
  ],
);
console.log(
  `\nBerth (npm start): ${(median(berth.map((x) => x.ms)) / median(hello.map((x) => x.ms))).toFixed(2)} × hello world's cold start, ${(median(berth.map((x) => x.cpuMs)) / median(hello.map((x) => x.cpuMs))).toFixed(2)} × its CPU (goal: ≤ 0.5 s)`,
);
