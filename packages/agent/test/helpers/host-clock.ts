// The host's clock, moved by a test (BERTH_TEST_CLOCK_FILE, scheduler/test-clock.ts): a reminder due
// in an hour is sent without the test waiting an hour on the wall clock.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from './bed.js';

/**
 * The host's clock (BERTH_TEST_CLOCK_FILE): `moveTo` sets it and resolves once the scheduler has
 * looked at what fell due by then (test-clock.ts logs "test clock moved" after that pass).
 */
export function hostClock() {
  const file = join(mkdtempSync(join(tmpdir(), 'berth-clock-')), 'offset');
  writeFileSync(file, '0');
  let offset = 0;
  return {
    file,
    now: () => Date.now() + offset,
    async moveTo(at: number, logs: string[]) {
      const moved = () => logs.filter((l) => l.includes('"msg":"test clock moved"')).length;
      const seen = moved();
      offset = Math.max(offset, at - Date.now());
      writeFileSync(file, String(offset));
      await waitUntil(() => moved() > seen, 'the host claims by its moved clock');
    },
  };
}
