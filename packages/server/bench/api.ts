// bench:api — the control plane's read path, GET /api/v1/assistants/{id} (auth, ownership, record),
// next to Fastify's hello world in the same run: throughput with 50 clients, then latency at a
// fixed request rate. Goal: at least half of hello world's throughput.
import { closedLoop, loadRow, openLoop, report, type LoadResult } from './load.js';
import { start, startPair, table, withCpu } from './processes.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = Number(process.env.API_CLIENTS ?? 50);
const RATE = Number(process.env.API_RATE ?? 2000);

const hello = await start('hello.ts', [], (l) => /listening on (\S+)/.exec(l)?.[1]);
const { worker, cp, info } = await startPair();
try {
  const helloTarget = { origin: hello.value, method: 'GET' as const, path: '/' };
  const getTarget = {
    origin: info.url,
    method: 'GET' as const,
    path: `/api/v1/assistants/${info.deploymentId}`,
    headers: { 'x-api-key': info.key },
  };
  process.stderr.write(`${CLIENTS} clients, closed loop…\n`);
  const helloMax = await withCpu(hello.child.pid!, () => closedLoop(helloTarget, CLIENTS, SECONDS));
  const getMax = await withCpu(cp.child.pid!, () => closedLoop(getTarget, CLIENTS, SECONDS));
  process.stderr.write(`${RATE} req/s, open loop…\n`);
  const helloRate = await withCpu(hello.child.pid!, () => openLoop(helloTarget, RATE, SECONDS));
  const getRate = await withCpu(cp.child.pid!, () => openLoop(getTarget, RATE, SECONDS));
  const row = (load: string, what: string, r: LoadResult & { cpuUsPerRequest: number }) =>
    loadRow([load, what], r, [r.cpuUsPerRequest.toFixed(0)]);
  console.log(
    `\nbench:api (${SECONDS} s per row after 1 s warm-up; generator, control plane and baseline share the machine)\n`,
  );
  table(
    ['load', 'server', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'errors'],
    [
      row(`${CLIENTS} clients`, 'hello world (baseline)', helloMax),
      row(`${CLIENTS} clients`, 'GET /assistants/{id}', getMax),
      row(`${RATE} req/s`, 'hello world (baseline)', helloRate),
      row(`${RATE} req/s`, 'GET /assistants/{id}', getRate),
    ],
  );
  const share = getMax.rps / helloMax.rps;
  const cpuShare = helloMax.cpuUsPerRequest / getMax.cpuUsPerRequest;
  console.log(`\nthroughput: ${(share * 100).toFixed(0)} % of hello world (goal: at least 50 %)`);
  // Throughput shares the two cores with the load generator and whatever else runs; the CPU each
  // request costs the server is the figure a loaded machine moves least.
  console.log(`server CPU per request: hello world is ${(cpuShare * 100).toFixed(0)} % of the GET's`);
  report('api', {
    helloMax,
    getMax,
    helloRate,
    getRate,
    shareOfHelloWorld: share,
    cpuShareOfHelloWorld: cpuShare,
    goal: share >= 0.5,
  });
} finally {
  hello.child.kill('SIGKILL');
  worker.child.kill('SIGKILL');
  // SIGINT, and a wait, so a control plane profiled with BENCH_CPU_PROF writes its profile.
  if (cp.child.exitCode === null && cp.child.signalCode === null) {
    const exited = new Promise((r) => cp.child.once('exit', r));
    cp.child.kill('SIGINT');
    await exited;
  }
}
