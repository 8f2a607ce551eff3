// The order test files run in, and which lane takes each. Every file's last wall time and CPU are
// known from the previous run (scripts/test-durations.json on a fresh clone). Files run longest
// first, so the run does not end on one long file alone. A file that mostly waits (a Telegram
// pacing window, a reminder due on the real clock, a pod's grace period) holds one of the lanes for
// its whole wall time while computing little, so such files get one more lane of their own beside
// the others: they add little CPU to the machine, and the lanes of the files that compute are no
// longer held by them (docs/decisions/0031-ci-round-4.md, "Seventh session").

/** A file waits when its CPU is under this share of its wall time… */
export const WAITING_CPU_SHARE = 0.3;
/** …and it lasts at least this long (a short file's share says little). */
export const WAITING_MIN_MS = 5000;

/**
 * A job's recorded time: `{ ms, cpuMs }`. The file holds either that object or, as older runs
 * wrote it, the wall time alone (then nothing is known of its CPU).
 * @returns {{ ms: number, cpuMs?: number } | undefined}
 */
export function recordedTime(value) {
  if (typeof value === 'number') return { ms: value };
  if (value && typeof value === 'object' && typeof value.ms === 'number') {
    return typeof value.cpuMs === 'number' ? { ms: value.ms, cpuMs: value.cpuMs } : { ms: value.ms };
  }
  return undefined;
}

/** Whether a file with this recorded time runs in the waiting lane. */
export function waits(time) {
  return (
    time !== undefined &&
    time.cpuMs !== undefined &&
    time.ms >= WAITING_MIN_MS &&
    time.cpuMs < time.ms * WAITING_CPU_SHARE
  );
}

/**
 * The index in `pending` (sorted longest first) of the job a lane takes next, or -1 for none now.
 * The waiting lane takes only files that wait. The other lanes take the longest file that computes
 * and, once none is left to start, the files that wait too. `ready(job)` says whether the job's
 * Node is in place; a job whose Node is not is left for later.
 * @template J
 * @param {J[]} pending
 * @param {{ lane: 'waiting' | 'computing', waiting: (job: J) => boolean, ready: (job: J) => boolean }} how
 */
export function nextIndex(pending, { lane, waiting, ready }) {
  if (lane === 'waiting') return pending.findIndex((j) => waiting(j) && ready(j));
  const computing = pending.findIndex((j) => !waiting(j) && ready(j));
  return computing >= 0 ? computing : pending.findIndex((j) => ready(j));
}

/** Whether a lane has anything left to take, now or once a Node is in place. */
export function hasWork(pending, { lane, waiting }) {
  return lane === 'waiting' ? pending.some(waiting) : pending.length > 0;
}

/**
 * Each file's CPU, from the total of the runner's reaped children (`read()`, in ms). A file's
 * process is reaped before its `exit` event, and its CPU is the rise since the last reading. The
 * runner's loop may reap several files in one batch before any `exit` runs: the first reading then
 * holds them all and the next 0. Files reaped in one turn of the loop get NaN (unknown) instead,
 * since 0 would put a busy file in the waiting lane next time. The run's total stays `read()`'s.
 * @param {() => number} read
 */
export function cpuMeter(read) {
  let seen = read();
  /** @type {{ ms: number }[] | undefined} */
  let batch;
  return {
    /** At a file's `exit`: its reading, which becomes NaN if another file exits in the same turn. */
    exited() {
      const now = read();
      const cell = { ms: now - seen };
      seen = now;
      if (!batch) {
        const mine = [];
        batch = mine;
        setImmediate(() => {
          if (mine.length > 1) for (const c of mine) c.ms = Number.NaN;
          batch = undefined;
        });
      }
      batch.push(cell);
      return cell;
    },
  };
}
