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
  /** The longest the work held the event loop between two yields, wall clock and CPU (ms). */
  longestMs: number;
  longestCpuMs: number;
}

export function slicer(sliceMs = SLICE_MS): Slicer {
  let since = performance.now();
  let cpuSince = process.cpuUsage();
  let calls = 0;
  const close = (now: number) => {
    const cpu = process.cpuUsage(cpuSince);
    s.longestMs = Math.max(s.longestMs, now - since);
    s.longestCpuMs = Math.max(s.longestCpuMs, (cpu.user + cpu.system) / 1000);
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
    { end: () => close(performance.now()), longestMs: 0, longestCpuMs: 0 },
  );
  return s;
}
