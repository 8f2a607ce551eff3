// A host clock a test can move forward, so a reminder due in an hour (or 45 s after a restart) is
// sent without the test waiting for it on the wall clock. Only when BERTH_TEST_CLOCK_FILE names a
// file (config/env.ts): it holds how many milliseconds this host runs ahead of the system clock;
// the test rewrites it, and on each change the scheduler looks again at what is due.
import { readFileSync, watch } from 'node:fs';
import type { Logger } from 'pino';

export interface TestClock {
  now(): number;
  close(): void;
}

export function fileClock(file: string, log: Logger, moved: () => void): TestClock {
  const read = () => {
    const text = readFileSync(file, 'utf8').trim();
    const ms = Number(text);
    if (!Number.isFinite(ms)) throw new Error(`BERTH_TEST_CLOCK_FILE: ${file} holds "${text}", not milliseconds`);
    return text ? ms : undefined;
  };
  let offset = read() ?? 0;
  const watcher = watch(file, () => {
    let next: number | undefined;
    try {
      next = read();
    } catch {
      return;
    }
    // Empty: caught between the truncate and the write of a rewrite; the write's own event follows.
    if (next === undefined || next === offset) return;
    offset = next;
    moved();
    // Said after the scheduler's pass (its timer, set by moved(), fires first): tests wait for this
    // line to know what fell due by the moved time is claimed and its sends started.
    setTimeout(() => log.info({ offsetMs: next }, 'test clock moved'), 0);
  });
  return { now: () => Date.now() + offset, close: () => watcher.close() };
}
