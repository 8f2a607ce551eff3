// bench:metrics — what the Prometheus metrics cost the control plane (goal: < 3 %). Two control
// planes in the same run against one instant worker, metrics off (no METRICS_TOKEN) and on, each
// driven in turn (off, on, then on, off: drift of the shared machine falls on both) on the read path
// (GET /assistants/{id}) and the chat proxy; then one scrape of the "on" plane, timed. Throughput
// on a shared machine moves by more than 3 % between runs; CPU per request moves least.
import { request } from 'undici';
import { closedLoop, ms, openLoopSideBySide, report, type LoadResult } from './load.js';
import { cpuMs, start, table, withCpu } from './processes.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
/** The fixed rate of the side-by-side rows (requests per second to each plane). */
const RATE = Number(process.env.BENCH_METRICS_RATE ?? 300);
const CLIENTS = Number(process.env.API_CLIENTS ?? 50);
const TOKEN = 'bench-metrics-token-0123456789';

type Info = { url: string; key: string; deploymentId: string };
const worker = await start('instant-worker.ts', [], (l) => /listening on (\S+)/.exec(l)?.[1]);
const startCp = () => start('control-plane.ts', [worker.value], (l) => (l.startsWith('{"ready":true') ? l : undefined));
const off = await startCp();
process.env.BENCH_METRICS_TOKEN = TOKEN;
const on = await startCp();
delete process.env.BENCH_METRICS_TOKEN;
process.on('exit', () => {
  for (const c of [off, on, worker]) c.child.kill('SIGKILL');
});
const infoOff = JSON.parse(off.value) as Info;
const infoOn = JSON.parse(on.value) as Info;

const body = JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'ping' }] });
const targets = (i: Info) => ({
  get: {
    origin: i.url,
    method: 'GET' as const,
    path: `/api/v1/assistants/${i.deploymentId}`,
    headers: { 'x-api-key': i.key },
  },
  chat: {
    origin: i.url,
    method: 'POST' as const,
    path: `/api/v1/assistants/${i.deploymentId}/chat/completions`,
    body,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${i.key}` },
  },
});

type Measured = LoadResult & { cpuUsPerRequest: number };
const results: Record<string, Measured[]> = {};
for (let round = 0; round < 2; round++)
  // Off first in round 1, on first in round 2: whatever favours the first (or second) run
  // falls on both.
  for (const path of ['get', 'chat'] as const)
    for (const [name, cp, info] of (round === 0
      ? [
          ['off', off, infoOff],
          ['on', on, infoOn],
        ]
      : [
          ['on', on, infoOn],
          ['off', off, infoOff],
        ]) as Array<['off' | 'on', typeof off, Info]>) {
      process.stderr.write(`round ${round + 1}: ${path}, metrics ${name}…\n`);
      const r = await withCpu(cp.child.pid!, () => closedLoop(targets(info)[path], CLIENTS, SECONDS));
      (results[`${path} ${name}`] ??= []).push(r);
    }

// At a fixed rate, both planes at once, their requests interleaved (openLoopSideBySide): the same
// moments of the shared machine fall on both, and CPU per request is compared at equal load.
const fixed: Record<string, Array<LoadResult & { cpuUsPerRequest: number }>> = {};
for (const path of ['get', 'chat'] as const) {
  process.stderr.write(`${path} at ${RATE} req/s to each plane, side by side…\n`);
  const before = [cpuMs(off.child.pid!), cpuMs(on.child.pid!)];
  const rs = await openLoopSideBySide([targets(infoOff)[path], targets(infoOn)[path]], RATE, SECONDS * 2);
  const after = [cpuMs(off.child.pid!), cpuMs(on.child.pid!)];
  fixed[path] = rs.map((r, i) => ({ ...r, cpuUsPerRequest: ((after[i]! - before[i]!) * 1000) / r.sent }));
}

const mean = (rs: Measured[], f: (r: Measured) => number) => rs.reduce((a, r) => a + f(r), 0) / rs.length;
const rows: string[][] = [];
const figures: Record<string, unknown> = {};
for (const path of ['get', 'chat'] as const) {
  const o = results[`${path} off`]!;
  const n = results[`${path} on`]!;
  const rpsCost = 1 - mean(n, (r) => r.rps) / mean(o, (r) => r.rps);
  const cpuCost = mean(n, (r) => r.cpuUsPerRequest) / mean(o, (r) => r.cpuUsPerRequest) - 1;
  for (const [label, rs] of [
    ['off (baseline)', o],
    ['on', n],
  ] as const)
    rows.push([
      path === 'get' ? 'GET /assistants/{id}' : 'POST …/chat/completions',
      `metrics ${label}`,
      mean(rs, (r) => r.rps).toFixed(0),
      ms(mean(rs, (r) => r.p50)),
      ms(mean(rs, (r) => r.p99)),
      mean(rs, (r) => r.cpuUsPerRequest).toFixed(0),
      String(rs.reduce((a, r) => a + r.errors, 0)),
    ]);
  figures[path] = { rpsCost, cpuCost };
}
// In process, where the shared machine moves it least: what counting one answered request costs
// (the onResponse hook's work), next to the server CPU a GET costs with metrics off.
const { Metrics } = await import('../src/ops/metrics.js');
const { OpsEvents } = await import('../src/platform/events.js');
const m = new Metrics({
  deployments: { countByStatus: async () => ({}) },
  jobs: { backlog: async () => ({ queued: 0, oldestAgeSeconds: 0 }) },
  workers: {},
  events: new OpsEvents(),
});
const N = 1_000_000;
const routes = ['/api/v1/assistants/:deploymentId', '/api/v1/assistants/:deploymentId/chat/completions'];
for (let i = 0; i < 10_000; i++) m.observeRequest(routes[i & 1]!, 'GET', 200, 0.001);
const c0 = process.cpuUsage();
for (let i = 0; i < N; i++) m.observeRequest(routes[i & 1]!, 'GET', 200, 0.001 * (i & 7));
const c1 = process.cpuUsage(c0);
const nsPerRequest = ((c1.user + c1.system) * 1000) / N;
const getCpuOff = mean(results['get off']!, (r) => r.cpuUsPerRequest);
// The baseline in the same process: prom-client's own Counter and Histogram through cached label
// children (what ops/metrics.ts did before request-metrics.ts; children re-hash labels per call).
const { Counter, Histogram, Registry } = await import('prom-client');
const reg = new Registry();
const pc = new Counter({ name: 'b_total', help: 'b', labelNames: ['route', 'method', 'status'], registers: [reg] });
const ph = new Histogram({
  name: 'b_seconds',
  help: 'b',
  labelNames: ['route', 'method'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [reg],
});
const kids = new Map<string, { c: { inc(): void }; h: { observe(v: number): void } }>();
const viaPromClient = (route: string, method: string, status: number, v: number) => {
  const key = `${route} ${method} ${status}`;
  let k = kids.get(key);
  if (!k) kids.set(key, (k = { c: pc.labels(route, method, String(status)), h: ph.labels(route, method) }));
  k.c.inc();
  k.h.observe(v);
};
for (let i = 0; i < 10_000; i++) viaPromClient(routes[i & 1]!, 'GET', 200, 0.001);
const p0 = process.cpuUsage();
for (let i = 0; i < N; i++) viaPromClient(routes[i & 1]!, 'GET', 200, 0.001 * (i & 7));
const p1 = process.cpuUsage(p0);
const nsPromClient = ((p1.user + p1.system) * 1000) / N;
console.log(
  `\ncounting one request in process: ${nsPerRequest.toFixed(0)} ns = ${((nsPerRequest / 1000 / getCpuOff) * 100).toFixed(2)} % of a GET's server CPU with metrics off (${getCpuOff.toFixed(0)} µs); through prom-client's label children (baseline): ${nsPromClient.toFixed(0)} ns`,
);
m.registry.clear();

const t0 = performance.now();
const scrape = await request(`${infoOn.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
const text = await scrape.body.text();
const scrapeMs = performance.now() - t0;

console.log(
  `\nbench:metrics (${CLIENTS} clients, ${SECONDS} s per row × 2 rounds, means; both planes share the machine)\n`,
);
table(['path', 'control plane', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'errors'], rows);
const fixedRows: string[][] = [];
for (const path of ['get', 'chat'] as const) {
  const [o, n] = fixed[path]!;
  for (const [label, r] of [
    ['off (baseline)', o!],
    ['on', n!],
  ] as const)
    fixedRows.push([
      path === 'get' ? 'GET /assistants/{id}' : 'POST …/chat/completions',
      `metrics ${label}`,
      ms(r.p50),
      ms(r.p99),
      r.cpuUsPerRequest.toFixed(1),
      String(r.errors),
    ]);
  (figures[path] as Record<string, number>).fixedRateCpuCost = n!.cpuUsPerRequest / o!.cpuUsPerRequest - 1;
}
console.log(`\nat a fixed ${RATE} req/s to each plane, side by side, ${SECONDS * 2} s\n`);
table(['path', 'control plane', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'errors'], fixedRows);
for (const path of ['get', 'chat'] as const) {
  const f = figures[path] as { rpsCost: number; cpuCost: number; fixedRateCpuCost: number };
  console.log(
    `${path}: at ${RATE} req/s, metrics cost ${(f.fixedRateCpuCost * 100).toFixed(1)} % CPU per request (goal: < 3 %)`,
  );
  console.log(
    `${path}: metrics cost ${(f.rpsCost * 100).toFixed(1)} % of throughput, ${(f.cpuCost * 100).toFixed(1)} % CPU per request (goal: < 3 %)`,
  );
}
console.log(`one scrape: ${scrapeMs.toFixed(1)} ms, ${text.length} bytes (status ${scrape.statusCode})`);
report('metrics', { ...figures, nsPerRequest, nsPromClient, scrapeMs, scrapeBytes: text.length });
process.exit(0);
