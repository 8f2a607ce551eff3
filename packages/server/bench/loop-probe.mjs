// Preloaded into bench:scale's control plane (`node --import loop-probe.mjs bin/berth-server.js`):
// the program as `npm start` runs it, plus a sampler of the event loop. On SIGUSR2 it writes to
// fd 3, then resets: the longest delay of the loop since the last report (wall clock; on a shared
// machine it includes the time the process was not scheduled at all) and the most CPU the process
// used between two turns of a 2 ms timer (the CPU of the longest stretch the loop was held;
// process CPU, so GC threads count too), and the same for the main thread alone where Linux says
// (its schedstat, in ns): at most how long the loop's own thread ran between two turns of the timer,
// which V8's helper threads (concurrent marking, parallel scavenges) do not inflate, nor time the
// thread spent off the CPU (descheduled, or blocked).
// With no requests, that stretch is the longest the reconciler's passes, the job runner, the
// timers or the collector's pauses on the main thread held the loop.
import { openSync, readSync, writeSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const loop = monitorEventLoopDelay({ resolution: 2 });
loop.enable();
let cpuMax = 0;
let last = process.cpuUsage();
// Opened on the main thread, so the file stays its own; read again in place (no open per turn).
const thread = (() => {
  try {
    return openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return undefined;
  }
})();
const buf = Buffer.alloc(64);
/** The main thread's CPU time in ms (schedstat's first field is ns on the CPU). */
const threadMs = () => {
  const n = readSync(thread, buf, 0, buf.length, 0);
  return Number(buf.latin1Slice(0, n).split(' ')[0]) / 1e6;
};
// A kernel without schedstats reads 0 (or something unparsable): then there is no thread figure,
// rather than a maximum of 0 that would read as no block at all.
let threadLast = thread === undefined ? Number.NaN : threadMs();
const threadKnown = Number.isFinite(threadLast) && threadLast > 0;
let threadMax = 0;
setInterval(() => {
  const d = process.cpuUsage(last);
  last = process.cpuUsage();
  cpuMax = Math.max(cpuMax, (d.user + d.system) / 1000);
  if (!threadKnown) return;
  const t = threadMs();
  if (!Number.isFinite(t)) return;
  threadMax = Math.max(threadMax, t - threadLast);
  threadLast = t;
}, 2).unref();
process.on('SIGUSR2', () => {
  // Where the memory is (MB): V8's heap in use and reserved, and what lives outside it.
  const m = process.memoryUsage();
  const mb = (x) => Math.round(x / 1048576);
  const memory = { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external) };
  writeSync(
    3,
    `loop ${JSON.stringify({ maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6, cpuMaxMs: cpuMax, ...(threadKnown ? { threadCpuMaxMs: threadMax } : {}), memory })}\n`,
  );
  loop.reset();
  cpuMax = 0;
  threadMax = 0;
});
