// bench:proxy — what the control plane adds to a chat request. N concurrent clients call a worker
// that answers at once, first straight at the worker and then through the control plane, in the
// same run; it prints requests/s, p50 and p99 of both and the added latency.
import { Pool } from 'undici';
import { startPair, table } from './processes.js';

const CONCURRENCY = (process.env.PROXY_CONCURRENCY ?? '1,50,200').split(',').map(Number);
const SECONDS = Number(process.env.PROXY_SECONDS ?? 5);
const WARMUP_S = 1;
const body = JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'ping' }] });

async function drive(origin: string, path: string, auth: string, n: number) {
  const pool = new Pool(origin, { connections: n, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const warmEnd = Date.now() + WARMUP_S * 1000;
  const end = warmEnd + SECONDS * 1000;
  await Promise.all(Array.from({ length: n }, async () => {
    while (Date.now() < end) {
      const t0 = process.hrtime.bigint();
      try {
        const res = await pool.request({ method: 'POST', path, headers: { authorization: auth, 'content-type': 'application/json' }, body });
        await res.body.dump();
        if (res.statusCode !== 200) errors++;
      } catch { errors++; }
      if (Date.now() > warmEnd) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }));
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { rps: latencies.length / SECONDS, p50: pct(50), p99: pct(99), errors };
}

const { worker, cp, info } = await startPair();
try {
  const w = new URL(info.workerUrl);
  const rows: string[][] = [];
  for (const n of CONCURRENCY) {
    process.stderr.write(`${n} clients…\n`);
    const direct = await drive(w.origin, `${w.pathname}/v1/chat/completions`, `Bearer ${info.gatewayToken}`, n);
    const proxied = await drive(info.url, `/api/v1/assistants/${info.deploymentId}/chat/completions`, `Bearer ${info.key}`, n);
    const f = (x: number) => x.toFixed(2);
    rows.push([String(n), 'direct to worker', direct.rps.toFixed(0), f(direct.p50), f(direct.p99), '', String(direct.errors)]);
    rows.push([String(n), 'through control plane', proxied.rps.toFixed(0), f(proxied.p50), f(proxied.p99), `p50 +${f(proxied.p50 - direct.p50)} / p99 +${f(proxied.p99 - direct.p99)}`, String(proxied.errors)]);
  }
  console.log(`\nbench:proxy (non-streaming chat, worker answers at once; ${SECONDS} s per row after ${WARMUP_S} s warm-up; load generator, control plane and worker are three processes on ${(await import('node:os')).availableParallelism()} cores)\n`);
  table(['clients', 'path', 'req/s', 'p50 ms', 'p99 ms', 'added ms', 'errors'], rows);
  console.log('\ngoal: under 1 ms added at p99');
} finally {
  cp.child.kill('SIGINT');
  worker.child.kill('SIGKILL');
}
