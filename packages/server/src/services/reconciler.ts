// Runs the reconcile pass every few seconds (and at once when nudged) on whichever replica holds
// the `reconciler` lease in the store. A replica that stops releases it; one that dies lets it
// lapse after three intervals, and another replica takes over.
import { randomUUID } from 'node:crypto';
import type { LeaseRepo } from '../store/leases.js';
import { TombstoneRepo } from '../store/tombstones.js';
import { LOGIN_WINDOW_MS } from './accounts/login-limit.js';
import type { Services } from './context.js';
import { reconcilePass } from './reconcile-pass.js';
import { pruneOwnHost } from './prune-own-host.js';
import { IDEMPOTENCY_TTL_MS } from './purchase-idempotently.js';

export const RECONCILER_LEASE = 'reconciler';

/**
 * How long the store keeps what is finished (DELETED_RETENTION_HOURS, JOB_RETENTION_DAYS) or
 * abandoned (PENDING_SLOT_RETENTION_HOURS: a slot whose checkout was never paid).
 */
export interface Retention {
  tombstonesMs: number;
  jobsMs: number;
  pendingSlotsMs: number;
}

/** Payment event ids guard against redelivery; providers stop redelivering within days. */
const PAYMENT_EVENT_RETENTION_MS = 30 * 24 * 3600_000;
const HOUSEKEEPING_EVERY_MS = 60_000;

export class Reconciler {
  readonly holder = `reconciler-${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** Passes run by this replica (tests and logs). */
  passes = 0;
  private lastHousekeeping = 0;

  constructor(
    private readonly s: Services,
    private readonly leases: LeaseRepo,
    private readonly intervalMs: number,
    private readonly retention: Retention,
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
      } else {
        // Never what keeps a process alive: the server's socket does that.
        this.timer = setTimeout(() => this.nudge(), this.intervalMs);
        this.timer.unref();
      }
    });
  }

  async isLeader(): Promise<boolean> {
    return (await this.leases.holder(RECONCILER_LEASE, this.s.now().getTime())) === this.holder;
  }

  private async tick() {
    // Every replica, leader or not: its own agent host (local backend) holds only what is wanted.
    await pruneOwnHost(this.s).catch((err) =>
      this.s.log.warn({ err: (err as Error).message }, "pruning this replica's agent host failed; retrying"),
    );
    try {
      const now = this.s.now().getTime();
      if (!(await this.leases.acquire(RECONCILER_LEASE, this.holder, this.intervalMs * 3, now))) return;
      await reconcilePass(this.s);
      if (now - this.lastHousekeeping >= HOUSEKEEPING_EVERY_MS) {
        this.lastHousekeeping = now;
        await this.housekeeping(now);
      }
      this.passes++;
    } catch (err) {
      this.s.log.warn({ err: (err as Error).message }, 'reconcile pass failed; retrying at the next interval');
    }
  }

  /**
   * Purges tombstones whose cleanup is finished and whose retention has passed (their worker, if
   * one were still listed, was removed by the pass as unwanted), and sweeps finished jobs, old
   * payment-event ids and past rate-limit windows.
   */
  async housekeeping(now: number) {
    const tombstones = new TombstoneRepo(this.s.db);
    const observed = new Set(await this.s.workers.listWorkers());
    let purged = 0;
    for (const t of await tombstones.settledBefore(new Date(now - this.retention.tombstonesMs).toISOString())) {
      if (observed.has(t.workerName)) continue;
      await tombstones.purge(t.id);
      purged++;
    }
    // An abandoned slot becomes a tombstone like a deleted one, so a payment that still arrives
    // for it is found and its subscription cancelled.
    const abandonedSlots = await tombstones.buryAbandoned(
      new Date(now - this.retention.pendingSlotsMs).toISOString(),
      new Date(now).toISOString(),
    );
    const swept = await tombstones.sweep({
      jobsBefore: new Date(now - this.retention.jobsMs).toISOString(),
      paymentEventsBefore: new Date(now - PAYMENT_EVENT_RETENTION_MS).toISOString(),
      // Past windows of the longest counted window (sign-in attempts, 15 min), never a current one.
      rateWindowsBefore: now - 2 * LOGIN_WINDOW_MS,
      sessionsBefore: new Date(now).toISOString(),
      idempotencyKeysBefore: new Date(now - IDEMPOTENCY_TTL_MS).toISOString(),
    });
    const counts = { tombstones: purged, abandonedSlots, ...swept };
    if (Object.values(counts).some((n) => n > 0)) this.s.log.info(counts, 'housekeeping');
    return counts;
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.leases.release(RECONCILER_LEASE, this.holder).catch(() => {});
  }
}
