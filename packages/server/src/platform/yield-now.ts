// Long loops of the control plane's background work (a reconcile pass over 100,000 deployments)
// give the event loop back every few milliseconds, so requests are never queued behind them.
import { setImmediate as immediate } from 'node:timers/promises';

/** How long background work may hold the event loop before it yields. */
const SLICE_MS = 3;
/** Calls between two looks at the clock (a look costs about as much as a loop's step). */
const CHECK_EVERY = 32;

export interface Slicer {
  /**
   * Yields (a promise to await) once the current slice is used up; undefined, at no cost, otherwise.
   * The clock is read every CHECK_EVERY calls, or at once for a step that is itself long (`big`).
   */
  (big?: boolean): Promise<void> | undefined;
  /** Closes the last slice (its length counts in `longestMs`). */
  end(): void;
  /**
   * Awaits `p` (a read of the store) as a boundary: the slice ends where the work starts waiting,
   * and when the event loop ran meanwhile (real I/O, as a PostgreSQL read) the next one starts when
   * the work resumes, so the wait and what other callbacks did during it are not counted as the
   * work's block. A promise settled without the loop turning (SQLite's synchronous reads) keeps the
   * slice going.
   */
  across<T>(p: Promise<T>): Promise<T>;
  /** The longest the work held the event loop between two yields, wall clock and CPU (ms). */
  longestMs: number;
  longestCpuMs: number;
}

export function slicer(sliceMs = SLICE_MS): Slicer {
  let since = performance.now();
  let cpuSince = process.cpuUsage();
  let calls = 0;
  const close = (now: number, cpu = process.cpuUsage(cpuSince)) => {
    s.longestMs = Math.max(s.longestMs, now - since);
    s.longestCpuMs = Math.max(s.longestCpuMs, (cpu.user + cpu.system) / 1000);
  };
  const across = async <T>(p: Promise<T>): Promise<T> => {
    const at = performance.now();
    const cpu = process.cpuUsage(cpuSince);
    const idle = performance.eventLoopUtilization().idle;
    // The loop turned if it waited for I/O (its idle time grew) or reached the check phase.
    let turned = false;
    const check = setImmediate(() => {
      turned = true;
    });
    try {
      return await p;
    } finally {
      clearImmediate(check);
      if (turned || performance.eventLoopUtilization().idle > idle) {
        close(at, cpu);
        since = performance.now();
        cpuSince = process.cpuUsage();
      }
    }
  };
  const s: Slicer = Object.assign(
    (big?: boolean) => {
      if (!big && ++calls % CHECK_EVERY !== 0) return undefined;
      const now = performance.now();
      if (now - since < sliceMs) return undefined;
      close(now);
      return immediate().then(() => {
        since = performance.now();
        cpuSince = process.cpuUsage();
      });
    },
    { end: () => close(performance.now()), across, longestMs: 0, longestCpuMs: 0 },
  );
  return s;
}
