// The control plane for the benchmarks: the real app and store, with a workers backend that points
// every deployment at the instant worker, at the default log level (info). Hands what the load
// generator needs to the parent as one JSON line.
import { createRuntime, loadConfig } from '@berth/server';
// testkit's http module alone: its index would load every fake into the measured process.
import { listen } from '@berth/testkit/http';
import { scratchDir } from '@berth/testkit/scratch-dir';
import { forwardingHop } from './forwarding-hop.js';
import { answerMemoryReadings, ready } from './processes.js';
import { benchKey, byokBenchSlot } from './slots.js';
import { workersAt } from './workers.js';

const workerBase = process.argv[2]!;
const config = loadConfig({
  DATA_DIR: scratchDir('berth-bench-'),
  MANAGED_PROVIDER_API_KEY: 'sk-bench',
  // The per-key limit stays on, so its cost (one counter upsert a request) is measured, but at the
  // highest value it accepts, so the load generator's thousands of requests a second are not refused.
  RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000',
  CHAT_CONCURRENCY_PER_KEY: '0',
  // BENCH_LOG_LEVEL=debug (with BENCH_STDOUT) logs every request's URL, so a request the load
  // generator reports as unanswered (its `n=` query) can be looked up: received or not.
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  CHAT_CONCURRENCY_PER_ASSISTANT: '0',
  // bench:metrics starts one control plane with metrics on (a token) and one with them off.
  METRICS_TOKEN: process.env.BENCH_METRICS_TOKEN,
});
const rt = await createRuntime(config, { workers: workersAt('static', workerBase) });
const key = await benchKey(rt);
const deploymentId = await byokBenchSlot(rt, key, 'bench');
await rt.idle();
const d = await rt.services.deployments.findById(deploymentId);
const address = await rt.app.listen({ port: 0, host: '127.0.0.1' });
// Measured once start-up's work after listening is done (the serializers compiled in the background).
await rt.compiled;
// bare-hop.ts's lines in this process, idle unless a bench calls them. bench:proxy measures them
// next to the floor: what the same forwarding costs inside the control plane's process (decision
// 0027, round 26; one run is within the machine's noise, several show the process's share).
const inProcessHop = await listen(forwardingHop(new URL(`${d!.workerUrl!.replace(/\/+$/, '')}/v1`)));
ready(
  JSON.stringify({
    ready: true,
    url: address,
    key,
    deploymentId: d!.id,
    workerUrl: d!.workerUrl,
    gatewayToken: rt.secrets.open(d!.gatewayTokenEnc!),
    inProcessHop,
  }),
);
process.on('SIGINT', () => process.exit(0));
// bench:streams asks for the live heap (after a full GC when node runs with --expose-gc).
answerMemoryReadings('cp');
