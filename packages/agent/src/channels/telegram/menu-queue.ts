// The host's queue of / menu calls (setMyCommands): one call at a time, at least MENU_GAP_MS
// apart, every bot's default menu before any translated one. A first start of 10,000 bots makes
// 60,000 calls; back to back they held 54–59 % of a core for minutes (issue 64). Paced, the host
// idles while its menus are set, and each bot's / menu shows in its default language first.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * 40 ms: about 25 calls a second, 2.5–3 % of a core at the ~1 ms of host CPU a call costs here.
 * At 20 ms the queue alone held 4–5 % for as long as menus were owed (a 10,000-bot first start:
 * 60,000 calls, 20+ minutes), the same at 100 agents as at 10,000, and the host's idle CPU was over
 * its 5 % (issue 64). A first start of 10,000 bots now sets their default menus in ~7 minutes, every
 * translation in ~40; a restart sets none (menu-record.ts); one new bot's menu takes 0.25 s.
 */
export const MENU_GAP_MS = 40;

interface Job {
  run(): Promise<unknown>;
  signal: AbortSignal;
  settle(err?: unknown): void;
}

export class MenuQueue {
  /** 0: default menus, 1: translations. */
  private readonly lanes: [Job[], Job[]] = [[], []];
  private running = false;

  constructor(private readonly gapMs = MENU_GAP_MS) {}

  /** Runs `run` in its turn; a job whose bot stopped meanwhile is dropped unrun (rejects). */
  add(lane: 0 | 1, signal: AbortSignal, run: () => Promise<unknown>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.lanes[lane].push({ run, signal, settle: (err) => (err === undefined ? resolve() : reject(err)) });
      void this.drain();
    });
  }

  private async drain() {
    if (this.running) return;
    this.running = true;
    try {
      for (let job = this.next(); job; job = this.next()) {
        if (job.signal.aborted) {
          job.settle(job.signal.reason ?? new Error('stopped'));
          continue;
        }
        try {
          await job.run();
          job.settle();
        } catch (err) {
          job.settle(err ?? new Error('menu call failed'));
        }
        await sleep(this.gapMs);
      }
    } finally {
      this.running = false;
    }
  }

  private next(): Job | undefined {
    return this.lanes[0].shift() ?? this.lanes[1].shift();
  }
}
