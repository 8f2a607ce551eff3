// Paths measured in turns against one machine: at one client a chat is a chain of processes, and
// the machine's load moves its rate by ±10 % within seconds, so paths measured one after the other
// put that drift into their ratios (decision 0027, rounds 6 and 24). Each round gives every path a
// turn (turnOrder), and the CPU of the processes named for a path is read around its turns. Shared by
// bench:proxy and bench:proxy-ab.
import { closedLoop, type LoadResult, type Target } from './load.js';
import { cpuMs } from './processes.js';

export interface TurnPath {
  target: Target;
  /** The processes whose CPU is read around this path's turns. */
  pids: number[];
}

export interface Turns {
  /** One closed loop a round. */
  results: LoadResult[];
  /** Per pid of the path, the CPU it spent in the path's turns, in milliseconds. */
  cpuMs: number[];
  /** Requests sent in the path's turns, warm-ups included (what CPU is divided by). */
  sent: number;
  /** Requests answered after the warm-ups. */
  answered: number;
}

/**
 * The paths' order in round `r`, a Williams design: over 2n rounds each path follows each other path
 * within a round equally often, where a plain rotation always puts the same path after the same one.
 * Row 0 is 0, 1, n−1, 2, n−2, …, and row k adds k to every entry (mod n). An even n takes row r in
 * round r. An odd n needs the rows reversed as well: round 2k takes row k, round 2k+1 row k+2
 * reversed (not row k, whose reversal starts with the path that just ran), so for n ≥ 3 no path runs
 * two turns in a row across a round's boundary. The full balance wants a multiple of n rounds for
 * an even n, of 2n for an odd n.
 */
export function turnOrder(r: number, n: number): number[] {
  const first: number[] = [0];
  for (let lo = 1, hi = n - 1; first.length < n; ) first.push(first.length % 2 === 1 ? lo++ : hi--);
  const row = (k: number) => first.map((x) => (x + k) % n);
  if (n % 2 === 0) return row(r);
  const k = Math.floor(r / 2);
  return r % 2 === 0 ? row(k) : row(k + 2).reverse();
}

export async function inTurns(
  paths: TurnPath[],
  o: { rounds: number; seconds: number; clients: number; onRound?: (round: number) => void },
): Promise<Turns[]> {
  const out: Turns[] = paths.map((p) => ({ results: [], cpuMs: p.pids.map(() => 0), sent: 0, answered: 0 }));
  for (let r = 0; r < o.rounds; r++) {
    o.onRound?.(r);
    for (const i of turnOrder(r, paths.length)) {
      const { target, pids } = paths[i]!;
      const t = out[i]!;
      const before = pids.map(cpuMs);
      const res = await closedLoop(target, o.clients, o.seconds);
      pids.forEach((pid, j) => {
        t.cpuMs[j]! += cpuMs(pid) - before[j]!;
      });
      t.results.push(res);
      t.sent += res.sent;
      t.answered += res.count;
    }
  }
  return out;
}

/** Microseconds of CPU a chat: `ms` spent over the requests sent. */
export const usPerChat = (ms: number, t: Turns) => (ms * 1000) / t.sent;

/**
 * A path's turns as one row: rates and CPU summed (the CPU of the path's first pid), latencies the
 * median of the turns' own. `seconds` is each turn's measured length. Shared by bench:proxy and
 * bench:gateway, whose hop-against-bare CPU ratios are read from these rows.
 */
export function turnsRow(t: Turns, seconds: number): LoadResult & { cpuUsPerRequest: number } {
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const sum = (f: (x: LoadResult) => number) => t.results.reduce((a, x) => a + f(x), 0);
  return {
    rps: t.answered / (t.results.length * seconds),
    p50: median(t.results.map((x) => x.p50)),
    p99: median(t.results.map((x) => x.p99)),
    p999: median(t.results.map((x) => x.p999)),
    errors: sum((x) => x.errors),
    timeouts: sum((x) => x.timeouts),
    count: t.answered,
    sent: t.sent,
    cpuUsPerRequest: usPerChat(t.cpuMs[0]!, t),
  };
}
