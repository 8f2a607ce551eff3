// Preloaded into bench:scale's control plane (`node --import loop-probe.mjs bin/berth-server.js`):
// the program as `npm start` runs it, plus a sampler of the event loop's delay. On SIGUSR2 it
// writes the longest delay (and the 99th percentile) since the last report to fd 3, then resets.
// With nothing else to do (no requests), the longest delay is the longest the reconciler's passes,
// the job runner and the timers held the loop.
import { writeSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const loop = monitorEventLoopDelay({ resolution: 2 });
loop.enable();
process.on('SIGUSR2', () => {
  writeSync(3, `loop ${JSON.stringify({ maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6 })}\n`);
  loop.reset();
});
