import { randomUUID } from 'node:crypto';
import type { LeaseRepo } from '../platform/store/leases.js';
import { LOGIN_WINDOW_MS } from '../accounts/index.js';
import { reconcilePass, type PassCounts, type PassDeps, type PassOptions } from './reconcile-pass.js';
import { DesiredIndex } from './desired-index.js';
import { pruneOwnHost } from './prune-own-host.js';
import { workerPages, REMOVAL_MARKS } from '../workers/index.js';
import { IDEMPOTENCY_TTL_MS } from '../deployments/index.js';
import { SplitSet } from '../platform/split-map.js';

export const RECONCILER_LEASE = 'reconciler';

/** How long a webhook update's key is kept (Meta retries for up to 7 days; Telegram for less). */
const CHANNEL_UPDATE_RETENTION_MS = 8 * 24 * 3600_000;
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
  /** The longest any pass held the event loop since the last reset (benchmarks, logs): wall clock and CPU, ms. */
  longestBlock = { ms: 0, cpuMs: 0 };
  private lastHousekeeping = 0;
  /** The desired state as the passes last read it (desired-index.ts). */
  private readonly index = new DesiredIndex();
  /** Passes (steady or restoring) run one after another. */
  private serial: Promise<unknown> = Promise.resolve();
  private readonly closing = new AbortController();
  /** Restoring passes queued or running (start-up, an agent host that restarted empty). */
  private restores = 0;

  /**
   * Workers are being created again: a stored worker URL may point at a host that is not there yet
   * (a new agent host's socket), so a chat that cannot reach its worker is "not ready", not a failure.
   */
  get restoring(): boolean {
    return this.restores > 0;
  }

  constructor(
    private readonly s: PassDeps,
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

  /**
   * A restoring pass (start-up, an agent host that restarted empty): missing workers are created
   * again at once, a few at a time. Runs after the pass in progress, whether or not this replica
   * holds the lease (as start-up always did).
   */
  restore(
    opts: Pick<PassOptions, 'progress' | 'concurrency' | 'pageSize'> & {
      /**
       * Settled before the pass reads anything (start-up: the store's statistics). Awaited inside
       * the queued work, so the restoring pass still goes ahead of the first steady pass: queued
       * after it, that pass found every worker missing and redeployed them all.
       */
      after?: Promise<unknown>;
    } = {},
  ): Promise<PassCounts> {
    const { after, ...pass } = opts;
    this.restores++;
    const run = this.exclusive(async () => {
      await after;
      return reconcilePass(this.s, this.index, { ...pass, restore: true, signal: this.closing.signal });
    });
    const over = () => {
      this.restores--;
    };
    run.then(over, over);
    return run;
  }

  private exclusive(work: () => Promise<PassCounts>): Promise<PassCounts> {
    const run = this.serial.then(work).then((c) => {
      this.longestBlock.ms = Math.max(this.longestBlock.ms, c.longestBlockMs);
      this.longestBlock.cpuMs = Math.max(this.longestBlock.cpuMs, c.longestBlockCpuMs);
      return c;
    });
    this.serial = run.catch(() => {});
    return run;
  }

  /**
   * Resolves once no pass is running or queued: the start-up's (its restoring pass, then its first
   * steady pass, which waits for the store's statistics) may still be under way well after the API
   * answers on a busy machine. Tests that change the workers behind the reconciler's back wait for
   * it; a pass that ran meanwhile would act on their change first.
   */
  async settled(): Promise<void> {
    // Looked at again after each wait: a pass that ends can queue the next (an agent host's restart
    // restores, then nudges), and the chain may have grown while it was awaited.
    for (;;) {
      if (this.running) {
        await this.running;
        continue;
      }
      const serial = this.serial;
      await serial;
      if (serial === this.serial && !this.running) return;
    }
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
      if (!(await this.takeLease(now))) return;
      await this.renewingLease(async () => {
        await this.exclusive(() => reconcilePass(this.s, this.index, { signal: this.closing.signal }));
        if (now - this.lastHousekeeping >= HOUSEKEEPING_EVERY_MS) {
          this.lastHousekeeping = now;
          await this.housekeeping(now);
        }
      });
      this.passes++;
    } catch (err) {
      this.s.log.warn({ err: (err as Error).message }, 'reconcile pass failed; retrying at the next interval');
    }
  }

  /** Takes or renews the lease for three intervals: a leader held up past that loses it. */
  private takeLease(now: number): Promise<boolean> {
    return this.leases.acquire(RECONCILER_LEASE, this.holder, this.intervalMs * 3, now);
  }

  /**
   * Runs `work` while renewing the lease every interval. Taken once a tick, it lapsed under a pass
   * longer than three intervals (a slow store or backend, thousands of workers to create at
   * 100,000, or the wait in `exclusive` behind a long restoring pass), and another replica started
   * passes beside it. A process that freezes renews nothing, so the lease still lapses then and
   * another replica takes over, as it should. One renewal at a time: under a store slower than an
   * interval they would queue up, each a wasted write, and the tick would wait for them all. The
   * one in flight ends before the tick does, and so does the last, made as the work ends: `stop`
   * releases the lease after the tick, and a renewal landing later would take it again.
   */
  private async renewingLease(work: () => Promise<void>) {
    let inFlight: Promise<void> | undefined;
    const said = { lost: false, failed: false };
    const renew = async () => {
      try {
        const held = await this.takeLease(this.s.now().getTime());
        if (held || said.lost) return;
        said.lost = true;
        this.s.log.warn(
          'the reconciler lease lapsed during a pass (this process was held up for over three intervals): another replica reconciles now, and this pass finishes what it started',
        );
      } catch (err) {
        if (said.failed) return;
        said.failed = true;
        this.s.log.warn(
          { err: (err as Error).message },
          'renewing the reconciler lease failed; retrying every interval',
        );
      }
    };
    const timer = setInterval(() => {
      inFlight ??= renew().finally(() => {
        inFlight = undefined;
      });
    }, this.intervalMs);
    timer.unref();
    try {
      await work();
    } finally {
      clearInterval(timer);
      await inFlight;
    }
    // Renewed as the pass ends, so the lease runs three intervals from here: the next renewal is
    // the next tick's, an interval away, and the last one during the pass could be an interval old
    // already. Without this, a leader held up a little over one interval after a pass (a loaded
    // machine) lost the lease, and the other replica reconciled beside its next pass (CI, rehearsal H).
    await renew();
  }

  /**
   * Purges tombstones whose cleanup is finished and whose retention has passed (their worker, if
   * one were still listed, was removed by the pass as unwanted), and sweeps finished jobs, old
   * payment-event ids and past rate-limit windows.
   */
  async housekeeping(now: number) {
    const tombstones = this.s.tombstones;
    let purged = 0;
    const settled = await tombstones.settledBefore(new Date(now - this.retention.tombstonesMs).toISOString());
    // Listing every worker (100,000 names on a big host, a page at a time) only when there is
    // something to purge.
    let observed: SplitSet | undefined;
    if (settled.length) {
      observed = new SplitSet();
      for await (const names of workerPages(this.s.workers)) for (const n of names) observed.add(n);
    }
    for (const t of settled) {
      if (observed?.has(t.workerName)) continue;
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
    // Meta retries a webhook for up to 7 days: an update's key is kept that long to answer a repeat once.
    const channelUpdates = await this.s.channelUpdates.prune(new Date(now - CHANNEL_UPDATE_RETENTION_MS).toISOString());
    // A stop or delete whose process died between its worker's removal and its save left its mark.
    const removalMarks = await this.leases.dropLapsedUnder(REMOVAL_MARKS, now);
    const counts = { tombstones: purged, abandonedSlots, ...swept, channelUpdates, removalMarks };
    if (Object.values(counts).some((n) => n > 0)) this.s.log.info(counts, 'housekeeping');
    return counts;
  }

  async stop() {
    this.stopped = true;
    this.closing.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.serial;
    await this.leases.release(RECONCILER_LEASE, this.holder).catch(() => {});
  }
}
