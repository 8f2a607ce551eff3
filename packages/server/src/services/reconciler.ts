// Runs the reconcile pass every few seconds (and at once when nudged) on whichever replica holds
// the `reconciler` lease in the store. A replica that stops releases it; one that dies lets it
// lapse after three intervals, and another replica takes over.
import { randomUUID } from 'node:crypto';
import type { LeaseRepo } from '../store/leases.js';
import type { Services } from './context.js';
import { reconcilePass } from './reconcile-pass.js';

export const RECONCILER_LEASE = 'reconciler';

export class Reconciler {
  readonly holder = `reconciler-${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** Passes run by this replica (tests and logs). */
  passes = 0;

  constructor(
    private readonly s: Services,
    private readonly leases: LeaseRepo,
    private readonly intervalMs: number,
  ) {}

  start() {
    this.stopped = false;
    this.nudge();
  }

  /** Runs a pass now (or right after the one in progress). */
  nudge() {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.running = this.tick().finally(() => {
      this.running = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.nudge();
      } else this.timer = setTimeout(() => this.nudge(), this.intervalMs);
    });
  }

  async isLeader(): Promise<boolean> {
    return (await this.leases.holder(RECONCILER_LEASE, this.s.now().getTime())) === this.holder;
  }

  private async tick() {
    try {
      const now = this.s.now().getTime();
      if (!(await this.leases.acquire(RECONCILER_LEASE, this.holder, this.intervalMs * 3, now))) return;
      await reconcilePass(this.s);
      this.passes++;
    } catch (err) {
      this.s.log.warn({ err: (err as Error).message }, 'reconcile pass failed; retrying at the next interval');
    }
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.leases.release(RECONCILER_LEASE, this.holder).catch(() => {});
  }
}
