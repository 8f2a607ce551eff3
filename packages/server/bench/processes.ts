import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

const HERE = import.meta.dirname;

/** A TCP port free right now on loopback (for a server that must know its own URL before it listens). */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

/** For the benchmark's child scripts: tell the parent they are ready (fd 3, see start()). */
export function ready(line: string) {
  writeSync(3, `${line}\n`);
}

/**
 * For a measured child: on SIGUSR2, a full GC (when node runs with --expose-gc) and a `memory {…}`
 * line on fd 3 with process.memoryUsage(), so bench:streams reads live memory rather than garbage
 * not yet collected. BENCH_HEAP_SNAPSHOT=<dir>: a heap snapshot named `<name>-<ms>` with each reading.
 */
export function answerMemoryReadings(name: string) {
  process.on('SIGUSR2', () => {
    (globalThis as { gc?: () => void }).gc?.();
    if (process.env.BENCH_HEAP_SNAPSHOT)
      writeHeapSnapshot(join(process.env.BENCH_HEAP_SNAPSHOT, `${name}-${Date.now()}.heapsnapshot`));
    ready(`memory ${JSON.stringify(process.memoryUsage())}`);
  });
}

export function start(
  script: string,
  args: string[],
  match: (line: string) => string | undefined,
  /** Node flags for this child alone (BENCH_NODE_FLAGS reaches control planes only). */
  nodeFlags: string[] = [],
): Promise<{ child: ChildProcess; value: string }> {
  const prof =
    process.env.BENCH_CPU_PROF && script.endsWith('control-plane.ts')
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
  // The measured processes run the built packages (no source condition); their stdout is the
  // control plane's log at its default level, discarded here, and fd 3 carries the ready line.
  // For profiling the control plane: BENCH_NODE_FLAGS (e.g. "--perf-basic-prof" for perf, or
  // "--trace-deopt") and BENCH_STDOUT, a file that gets its stdout instead of discarding it.
  const cp = script.endsWith('control-plane.ts');
  const flags = cp && process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [];
  const out = cp && process.env.BENCH_STDOUT ? openSync(process.env.BENCH_STDOUT, 'w') : 'ignore';
  const child = spawn(
    process.execPath,
    [...prof, ...flags, ...nodeFlags, '--import', 'tsx', resolve(HERE, script), ...args],
    {
      stdio: ['ignore', out, 'inherit', 'pipe'],
    },
  );
  return new Promise((ok, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`${script} did not start`)),
      Number(process.env.BENCH_START_TIMEOUT_MS ?? 60_000),
    );
    child.once('exit', (code) => fail(new Error(`${script} exited with ${code}`)));
    createInterface({ input: child.stdio[3] as NodeJS.ReadableStream }).on('line', (line) => {
      const v = match(line);
      if (v !== undefined) {
        clearTimeout(timer);
        ok({ child, value: v });
      }
    });
  });
}

export async function startPair() {
  const worker = await start('instant-worker.ts', [], (l) => /listening on (\S+)/.exec(l)?.[1]);
  const cp = await start('control-plane.ts', [worker.value], (l) => (l.startsWith('{"ready":true') ? l : undefined));
  // SIGINT lets a profiled control plane write its profile before it exits.
  process.on('exit', () => {
    cp.child.kill('SIGINT');
    worker.child.kill('SIGKILL');
  });
  return {
    worker,
    cp,
    info: JSON.parse(cp.value) as {
      url: string;
      key: string;
      deploymentId: string;
      workerUrl: string;
      gatewayToken: string;
      /** The bare forwarding hop's lines served from the control plane's process (forwarding-hop.ts). */
      inProcessHop: string;
    },
  };
}

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** CPU time (user + system) the process has used so far, in milliseconds: unlike latency, barely
 * moved by other work on the machine, so per-request CPU is comparable between loaded runs. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

/** Runs `load` and adds the CPU time `pid` spent on each request it counted, in microseconds. */
export async function withCpu<T extends { sent: number }>(
  pid: number,
  load: () => Promise<T>,
): Promise<T & { cpuUsPerRequest: number }> {
  const before = cpuMs(pid);
  const r = await load();
  const spent = cpuMs(pid) - before;
  return { ...r, cpuUsPerRequest: (spent * 1000) / r.sent };
}

export function table(head: string[], rows: string[][]) {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(w[i]!)).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}
