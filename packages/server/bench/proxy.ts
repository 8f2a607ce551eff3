// bench:proxy — what the control plane adds to a chat request, against a worker that answers at
// once, straight at the worker and through the control plane in the same run: throughput with N
// clients (closed loop), then the added latency at a fixed request rate (open loop). Then the same
// chat with usage in the worker's answer (a byok assistant's reply, issue 30), through the control
// plane, through a bare forwarding process (the floor of any extra hop), through the same hop on
// Fastify (the framework's own share) and through the same hop's lines inside the control plane's
// process (the process's own share), CPU and throughput side by side.
import { addedMs, closedLoop, loadRow, ms, openLoopSideBySide, report, type LoadResult } from './load.js';
import { start, startPair, table, withCpu } from './processes.js';
import { inTurns, turnsRow } from './turns.js';

const CONCURRENCY = (process.env.PROXY_CONCURRENCY ?? '1,50').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATE = Number(process.env.PROXY_RATE ?? 2000);
const body = JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'ping' }] });

const { info, cp, worker } = await startPair();
const w = new URL(info.workerUrl);
const hop = await start(
  'bare-hop.ts',
  [`${info.workerUrl.replace(/\/+$/, '')}/v1`],
  (l) => /listening on (\S+)/.exec(l)?.[1],
);
// The same hop on Fastify (no hook of Berth's): what the framework alone adds to the floor.
const fastifyHop = await start(
  'fastify-hop.ts',
  [`${info.workerUrl.replace(/\/+$/, '')}/v1`],
  (l) => /listening on (\S+)/.exec(l)?.[1],
);
process.on('exit', () => {
  hop.child.kill('SIGKILL');
  fastifyHop.child.kill('SIGKILL');
});
const json = { 'content-type': 'application/json' };
const direct = {
  origin: w.origin,
  method: 'POST' as const,
  path: `${w.pathname}/v1/chat/completions`,
  body,
  headers: { ...json, authorization: `Bearer ${info.gatewayToken}` },
};
const proxied = {
  origin: info.url,
  method: 'POST' as const,
  path: `/api/v1/assistants/${info.deploymentId}/chat/completions`,
  body,
  headers: { ...json, authorization: `Bearer ${info.key}` },
  tag: true,
};

/** The columns every row of both tables starts with (loadRow's labels and figures). */
const LOAD_HEAD = ['load', 'path', 'req/s', 'p50 ms', 'p99 ms'];
type Measured = LoadResult & { cpuUsPerRequest?: number };
const rows: string[][] = [];
const results: Record<string, { direct: Measured; proxied: Measured }> = {};
const cpu = (r: Measured) => (r.cpuUsPerRequest === undefined ? '—' : r.cpuUsPerRequest.toFixed(0));
const add = (load: string, d: Measured, p: Measured) => {
  results[load] = { direct: d, proxied: p };
  rows.push(loadRow([load, 'direct to worker (baseline)'], d, ['', cpu(d), '']));
  rows.push(loadRow([load, 'through control plane'], p, [addedMs(p, d), '', cpu(p)]));
};
// CPU per request (user + system from /proc, warm-up included), the figure a loaded machine moves
// least: the worker's for the direct rows, the control plane's own for the proxied ones. In the
// interleaved fixed-rate rows the worker serves both paths, so only the control plane's is given.
for (const n of CONCURRENCY) {
  process.stderr.write(`${n} clients…\n`);
  add(
    `${n} clients`,
    await withCpu(worker.child.pid!, () => closedLoop(direct, n, SECONDS)),
    await withCpu(cp.child.pid!, () => closedLoop(proxied, n, SECONDS)),
  );
}
process.stderr.write(`${RATE} req/s…\n`);
// Interleaved: each path at RATE, their requests alternating, so both see the same moments.
const side = await withCpu(cp.child.pid!, async () => {
  const [d, p] = (await openLoopSideBySide([direct, proxied], RATE, SECONDS)) as [LoadResult, LoadResult];
  return { d, p, sent: p.sent };
});
const atRate = { direct: side.d as Measured, proxied: { ...side.p, cpuUsPerRequest: side.cpuUsPerRequest } };
add(`${RATE} req/s`, atRate.direct, atRate.proxied);
console.log(
  `\nbench:proxy (non-streaming chat; ${SECONDS} s per row after 1 s warm-up, the fixed-rate rows interleaved; generator, control plane and worker share the machine)\n`,
);
table([...LOAD_HEAD, 'added p50 / p99 ms', 'worker CPU µs/req', 'control plane CPU µs/req', 'errors'], rows);
// With usage in the answer: the control plane next to a bare forwarding process, same clients.
const usageBody = JSON.stringify({
  model: 'assistant-agent',
  messages: [{ role: 'user', content: 'ping with usage' }],
});
const viaHop = { ...direct, origin: hop.value, path: '/v1/chat/completions', body: usageBody };
const viaFastifyHop = { ...viaHop, origin: fastifyHop.value };
const viaInProcessHop = { ...viaHop, origin: info.inProcessHop };
const viaCp = { ...proxied, body: usageBody };
const usageRows: string[][] = [];
const withUsage: Record<
  string,
  {
    hop: Measured;
    fastifyHop: Measured;
    inProcessHop: Measured;
    controlPlane: Measured;
    cpuRatio: number;
    throughputRatio: number;
  }
> = {};
// All four warmed before anything is counted: the hops start cold while the control plane has
// served every row above, and their JIT's first seconds would otherwise count against them.
process.stderr.write('warming the three hops and the control plane with usage…\n');
for (const path of [viaHop, viaFastifyHop, viaInProcessHop, viaCp]) await closedLoop(path, Math.max(...CONCURRENCY), 2);
// Eight: two full cycles of turnOrder's rows for four paths (an even n repeats every n rounds), so
// each path follows each other equally often.
const ROUNDS = Number(process.env.PROXY_USAGE_ROUNDS ?? 8);
const ROUND_SECONDS = 1;
for (const n of CONCURRENCY) {
  process.stderr.write(`with usage, ${n} clients…\n`);
  const turns = await inTurns(
    [
      // The two paths of one process two apart: turnOrder never puts those next to each other across
      // a round's boundary, so what one turn leaves pending (a flush, a checkpoint, a scavenge) is
      // charged to each of them equally often.
      { pids: [hop.child.pid!], target: viaHop },
      { pids: [cp.child.pid!], target: viaInProcessHop },
      { pids: [fastifyHop.child.pid!], target: viaFastifyHop },
      { pids: [cp.child.pid!], target: viaCp },
    ],
    { rounds: ROUNDS, seconds: ROUND_SECONDS, clients: n },
  );
  const [b, h, f, c] = turns.map((t) => turnsRow(t, ROUND_SECONDS)) as [Measured, Measured, Measured, Measured];
  const cpuRatio = c.cpuUsPerRequest! / b.cpuUsPerRequest!;
  const throughputRatio = c.rps / b.rps;
  withUsage[`${n} clients`] = { hop: b, fastifyHop: f, inProcessHop: h, controlPlane: c, cpuRatio, throughputRatio };
  const ofFloor = (r: Measured) =>
    `${(r.cpuUsPerRequest! / b.cpuUsPerRequest!).toFixed(2)}× CPU, ${((r.rps / b.rps) * 100).toFixed(0)} % req/s`;
  usageRows.push(loadRow([`${n} clients`, 'bare forwarding process (floor)'], b, [cpu(b), '']));
  usageRows.push(loadRow([`${n} clients`, 'the same hop on Fastify'], f, [cpu(f), ofFloor(f)]));
  usageRows.push(loadRow([`${n} clients`, "the same hop in the control plane's process"], h, [cpu(h), ofFloor(h)]));
  usageRows.push(loadRow([`${n} clients`, 'through control plane'], c, [cpu(c), ofFloor(c)]));
}
console.log(
  `\nwith usage in the worker's answer (byok): the control plane next to a bare forwarding process, the same hop on Fastify and the same hop in the control plane's process (${ROUNDS} turns of ${ROUND_SECONDS} s each, after 1 s warm-up each, the paths in turns)\n`,
);
table([...LOAD_HEAD, 'CPU µs/req (that process)', 'of the floor (goal ≤ 1.5×, ≥ 80 %)', 'errors'], usageRows);

const added = atRate.proxied.p99 - atRate.direct.p99;
console.log(`\nadded at ${RATE} req/s: p99 +${ms(added)} ms (goal: under 1 ms)`);
report('proxy', { results, withUsage, addedP99AtRate: added, goal: added < 1 });
// The children's pipes keep this process alive, and they are stopped only on exit (startPair): without
// this the run never ends after its table, and `npm run bench` waits on it until it is killed.
process.exit(0);
