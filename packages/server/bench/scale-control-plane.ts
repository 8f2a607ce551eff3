// bench:scale's control plane: the real app and store (SQLite under DATA_DIR, or DATABASE_URL),
// started against a store the parent has grown, with an in-process workers backend. Reports, on
// fd 3, how long the process took from its start to answering (and its CPU time by then) and to
// the start-up pass's end, and on SIGUSR2 the event loop's longest delay since the last report
// (monitorEventLoopDelay) next to the reconciler's own longest block and its pass count.
import { monitorEventLoopDelay } from 'node:perf_hooks';
// The unbundled dist/: tsx's loader, which this script needs, takes minutes over the bundle.
import { createRuntime, loadConfig } from '@berth/server';
import { ready } from './processes.js';
import { inProcessWorkers } from './scale-workers.js';

const [dataDir, databaseUrl] = [process.argv[2]!, process.argv[3] || undefined];
const config = loadConfig({
  DATA_DIR: dataDir,
  // The key bench:scale seeded the store with (PostgreSQL needs it given).
  ...(databaseUrl ? { DATABASE_URL: databaseUrl, SECRETS_KEY: Buffer.alloc(32, 9).toString('base64') } : {}),
  MANAGED_PROVIDER_API_KEY: 'sk-bench',
  RATE_LIMIT_PER_MINUTE: '1000000',
  CHAT_CONCURRENCY_PER_KEY: '0',
  CHAT_CONCURRENCY_PER_ASSISTANT: '0',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
});
const workers = inProcessWorkers('http://127.0.0.1:9');
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const rt = await createRuntime(config, { workers });
const address = await rt.app.listen({ port: 0, host: '127.0.0.1' });
// Answering the API from here; the start-up pass creates the missing workers meanwhile.
const readyMs = performance.now();
const cpu = process.cpuUsage();
const readyCpuMs = (cpu.user + cpu.system) / 1000;
const restoreLoop = monitorEventLoopDelay({ resolution: 1 });
restoreLoop.enable();
// Optional chaining below lets this same script measure the code before the start-up pass moved
// after listening (no `restored`, `readiness` or `longestBlock` there): the baseline.
await rt.restored;
const restoredMs = performance.now();
restoreLoop.disable();
// Signals are handled before the parent hears of ready (it may signal at once).
process.on('SIGINT', () => void rt.close().then(() => process.exit(0)));
process.on('SIGUSR2', () => {
  const block = rt.reconciler.longestBlock ?? { ms: undefined, cpuMs: undefined };
  ready(
    `loop ${JSON.stringify({ maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6, passes: rt.reconciler.passes, reconcilerMs: block.ms, reconcilerCpuMs: block.cpuMs })}`,
  );
  loop.reset();
  if (rt.reconciler.longestBlock) rt.reconciler.longestBlock = { ms: 0, cpuMs: 0 };
});
ready(
  JSON.stringify({
    ready: true,
    url: address,
    readyMs,
    readyCpuMs,
    restoredMs,
    restoreLoopMaxMs: restoreLoop.max / 1e6,
    restoreBlock: rt.reconciler.longestBlock && { ...rt.reconciler.longestBlock },
    created: workers.created(),
    readiness: rt.readiness?.(),
  }),
);
loop.reset();
