// The agent host's clock, moved forward by the test (the agent's scheduler/test-clock.ts): a
// reminder an hour ahead is due the moment the test says so, instead of after a wait on the wall
// clock. Give `env` to the control plane that starts the host (it passes BERTH_TEST_CLOCK_FILE on).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface AgentClock {
  env: { BERTH_TEST_CLOCK_FILE: string };
  /** How far the host runs ahead of the system clock, in ms. */
  offsetMs(): number;
  /** The host's time now, in ms since the epoch. */
  now(): number;
  /** Sets the host's time to `at` (ms since the epoch): the host moves with its next file event. */
  moveTo(at: number): void;
  close(): void;
}

/** The log line the host writes once it claims by the moved time. */
export const CLOCK_MOVED = /"msg":"test clock moved"/;

export function agentClock(): AgentClock {
  const dir = mkdtempSync(join(tmpdir(), 'berth-clock-'));
  const file = join(dir, 'offset');
  let offset = 0;
  // The host may run as its own uid (workers/local-agent-host.ts): it must read the file.
  chmodSync(dir, 0o755);
  writeFileSync(file, '0', { mode: 0o644 });
  return {
    env: { BERTH_TEST_CLOCK_FILE: file },
    offsetMs: () => offset,
    now: () => Date.now() + offset,
    moveTo(at) {
      offset = Math.max(offset, at - Date.now());
      writeFileSync(file, String(offset));
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
