// Preloaded into bench:scale's control plane (`node --import loop-probe.mjs bin/berth-server.js`):
// the program as `npm start` runs it, plus a sampler of the event loop. On SIGUSR2 it writes to
// fd 3, then resets: the longest delay of the loop since the last report (wall clock; on a shared
// machine it includes the time the process was not scheduled at all) and the most CPU the process
// used between two turns of a 2 ms timer (the CPU of the longest stretch the loop was held;
// process CPU, so GC threads count too). With no requests, that stretch is the longest the
// reconciler's passes, the job runner or the timers held the loop.
import { writeSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const loop = monitorEventLoopDelay({ resolution: 2 });
loop.enable();
let cpuMax = 0;
let last = process.cpuUsage();
setInterval(() => {
  const d = process.cpuUsage(last);
  last = process.cpuUsage();
  cpuMax = Math.max(cpuMax, (d.user + d.system) / 1000);
}, 2).unref();
process.on('SIGUSR2', () => {
  // Where the memory is (MB): V8's heap in use and reserved, and what lives outside it.
  const m = process.memoryUsage();
  const mb = (x) => Math.round(x / 1048576);
  const memory = { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external) };
  writeSync(
    3,
    `loop ${JSON.stringify({ maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6, cpuMaxMs: cpuMax, memory })}\n`,
  );
  loop.reset();
  cpuMax = 0;
});
