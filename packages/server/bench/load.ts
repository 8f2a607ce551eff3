// Load generators for the benchmarks. Closed loop (N clients, each sending its next request when
// the last answered) measures throughput; open loop (requests sent at a fixed rate whatever the
// server does, latency counted from the moment each request was due) measures latency honestly:
// a closed loop at saturation hides queueing, the "coordinated omission" of wrk-style tools.
// Every request has a deadline (BENCH_REQUEST_DEADLINE_MS, 30 s): one that is not answered by then
// is aborted, counted as an error and named on stderr, so a lost request cannot stall a run.
import { Pool, type Dispatcher } from 'undici';

export interface Target {
  origin: string;
  method: Dispatcher.HttpMethod;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Append `?n=<index>` to each open-loop request, so one reported as unanswered can be found in
   * the server's debug log (only for routes that ignore the query string).
   */
  tag?: boolean;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  errors: number;
  /** Requests aborted at the deadline (counted in errors too). */
  timeouts: number;
  count: number;
  /** Requests sent, the warm-up's included (what the server's CPU time is divided by). */
  sent: number;
}

const WARMUP_MS = 1000;
const DEADLINE_MS = Number(process.env.BENCH_REQUEST_DEADLINE_MS ?? 30_000);

type Outcome = 'ok' | 'error' | 'timeout';

function summarise(latencies: number[], seconds: number, errors: number, sent: number, timeouts: number): LoadResult {
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return {
    rps: latencies.length / seconds,
    p50: pct(50),
    p99: pct(99),
    p999: pct(99.9),
    errors,
    timeouts,
    count: latencies.length,
    sent,
  };
}

// The deadline is a signal, not undici's headersTimeout: that one starts only once the request is
// on a socket, so a request still queued in the pool (or whose connection never came) would wait on.
async function send(pool: Pool, t: Target, path = t.path): Promise<Outcome> {
  const signal = AbortSignal.timeout(DEADLINE_MS);
  try {
    const res = await pool.request({ method: t.method, path, headers: t.headers, body: t.body, signal });
    await res.body.dump();
    return res.statusCode < 400 ? 'ok' : 'error';
  } catch {
    return signal.aborted ? 'timeout' : 'error';
  }
}

function unanswered(t: Target, what: string, pool: Pool) {
  process.stderr.write(
    `load: ${t.method} ${t.origin}${what} not answered within ${DEADLINE_MS} ms (aborted, counted as an error); pool ${JSON.stringify(pool.stats)}\n`,
  );
}

/** `connections` clients in a loop for `seconds` after a warm-up second. */
export async function closedLoop(t: Target, connections: number, seconds: number): Promise<LoadResult> {
  const pool = new Pool(t.origin, { connections, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let timeouts = 0;
  let sent = 0;
  const warmEnd = Date.now() + WARMUP_MS;
  const end = warmEnd + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        const sentAt = Date.now();
        const outcome = await send(pool, t);
        sent++;
        if (outcome === 'timeout') unanswered(t, `${t.path} (sent at ${new Date(sentAt).toISOString()})`, pool);
        if (Date.now() <= warmEnd) continue;
        if (outcome === 'timeout') timeouts++;
        if (outcome !== 'ok') errors++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  await pool.close();
  return summarise(latencies, seconds, errors, sent, timeouts);
}

/** `rate` requests a second for `seconds` after a warm-up second, whatever the answers' pace. */
export async function openLoop(t: Target, rate: number, seconds: number): Promise<LoadResult> {
  return (await openLoopSideBySide([t], rate, seconds))[0]!;
}

/**
 * Each target at `rate` requests a second, their requests interleaved (a, b, a, b, … with the
 * order of each round alternating), so a figure and its baseline are measured over the same
 * moments: a pause of the machine lands on both, not on whichever ran second.
 */
export async function openLoopSideBySide(targets: Target[], rate: number, seconds: number): Promise<LoadResult[]> {
  const pools = targets.map((t) => new Pool(t.origin, { connections: 256, pipelining: 1 }));
  const results = targets.map(() => ({ latencies: [] as number[], errors: 0, timeouts: 0 }));
  const n = targets.length;
  const interval = 1000 / (rate * n);
  const start = performance.now();
  const warmEnd = start + WARMUP_MS;
  const rounds = Math.round(rate * (seconds + WARMUP_MS / 1000));
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < rounds * n; i++) {
    const round = Math.floor(i / n);
    const which = round % 2 ? n - 1 - (i % n) : i % n;
    const t = targets[which]!;
    const pool = pools[which]!;
    const r = results[which]!;
    const due = start + i * interval;
    const wait = due - performance.now();
    // Timers are too coarse for sub-millisecond spacing: sleep only when ahead by a millisecond.
    if (wait >= 1) await new Promise((ok) => setTimeout(ok, wait));
    // Late requests count from when they were due; early ones (timer slack) from when they left.
    const from = Math.min(due, performance.now());
    const path = t.tag ? `${t.path}${t.path.includes('?') ? '&' : '?'}n=${round}` : t.path;
    inflight.push(
      send(pool, t, path).then((outcome) => {
        if (outcome === 'timeout')
          unanswered(t, `${path} (request ${round}, due ${(due - start).toFixed(1)} ms into the run)`, pool);
        if (due < warmEnd) return;
        if (outcome === 'timeout') r.timeouts++;
        if (outcome !== 'ok') r.errors++;
        r.latencies.push(performance.now() - from);
      }),
    );
  }
  await Promise.all(inflight);
  await Promise.all(pools.map((p) => p.close()));
  return results.map((r) => summarise(r.latencies, seconds, r.errors, rounds, r.timeouts));
}

export const ms = (x: number) => x.toFixed(2);

/** The p-th percentile of unsorted samples (nearest rank). */
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** One table row of a load result: its labels, req/s, p50 and p99, the figures between, errors last. */
export const loadRow = (labels: string[], r: LoadResult, between: string[] = []) => [
  ...labels,
  r.rps.toFixed(0),
  ms(r.p50),
  ms(r.p99),
  ...between,
  String(r.errors),
];

/** What a path adds to its baseline's p50 and p99, in ms. */
export const addedMs = (r: LoadResult, base: LoadResult) => `+${ms(r.p50 - base.p50)} / +${ms(r.p99 - base.p99)}`;

/** One line per benchmark for `npm run bench`, which gathers them into a JSON file. */
export function report(name: string, figures: Record<string, unknown>) {
  process.stdout.write(`BENCH_RESULT ${JSON.stringify({ name, ...figures })}\n`);
}
