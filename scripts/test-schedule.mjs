// The order test files run in, and which lane takes each. Every file's last wall time and CPU are
// known from the previous run (scripts/test-durations.json on a fresh clone). Files run longest
// first, so the run does not end on one long file alone. A file that mostly waits (a Telegram
// pacing window, a reminder due on the real clock, a pod's grace period) holds one of the lanes for
// its whole wall time while computing little, so such files get one more lane of their own beside
// the others: they add little CPU to the machine, and the lanes of the files that compute are no
// longer held by them (docs/decisions/0031-ci-round-4.md, "Seventh session").

/**
 * A file waits when its share of CPU (CPU over wall time) is under this part of the whole run's…
 * Relative, not a fixed share: every file's share falls as the machine gets busier, and with a
 * fixed 30 % the times a run recorded with the waiting lane (busier) put 54 files in the lane where
 * the run before had put 30, among them tsc's check and the crash test (301 s of CPU against 125).
 * 0.65 of the run's share is the fixed 30 % of the run that measured the lane (0.465 then).
 */
export const WAITING_SHARE_OF_RUN = 0.65;
/** …and it lasts at least this long (a short file's share says little). */
export const WAITING_MIN_MS = 5000;

/**
 * The share of CPU of a whole recorded run: its files' CPU over their wall time, or undefined
 * when no file's CPU is known.
 * @param {({ ms: number, cpuMs?: number } | undefined)[]} times
 */
export function runShare(times) {
  let cpu = 0;
  let wall = 0;
  for (const t of times) {
    if (t?.cpuMs === undefined) continue;
    cpu += t.cpuMs;
    wall += t.ms;
  }
  return wall > 0 ? cpu / wall : undefined;
}

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

/**
 * Whether a file with this recorded time runs in the waiting lane, `share` being its run's
 * (runShare).
 * @param {{ ms: number, cpuMs?: number } | undefined} time
 * @param {number | undefined} share
 */
export function waits(time, share) {
  return (
    time !== undefined &&
    time.cpuMs !== undefined &&
    share !== undefined &&
    time.ms >= WAITING_MIN_MS &&
    time.cpuMs < time.ms * share * WAITING_SHARE_OF_RUN
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
