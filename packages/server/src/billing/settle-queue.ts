// Settlements are written in batches: a reply's hold release, cost and ledger row wait a few
// milliseconds and go to the store with the others of that moment in one transaction, instead of
// one transaction per model call. Exactness is kept where it matters: before a reservation on a
// period, pending settlements that would book more than they hold (the store's figures would be
// too generous) are written first, and a refused reservation is retried once after writing what
// is pending, so a reply that costs less than its hold never refuses the next call. A batch that
// fails to write (a full disk, a lost connection) goes back to the head of the queue and is tried
// again with a growing pause until it lands: usage is never dropped while the process lives.
// With a journal (billing/usage-journal.ts), a crash loses nothing either: each settlement's intent
// is written to it as it is queued, and batches land in journal order (a batch taken before an
// earlier one failed waits for it), so the next start books what the store does not hold yet.
import type { FastifyBaseLogger } from 'fastify';
import type { UsageJournal } from './usage-journal.js';
import type { PeriodKey, Settlement, UsageRepo } from '../platform/store/usage.js';

const id = (k: PeriodKey) => `${k.deploymentId}|${k.periodEnd}`;

export class SettleQueue {
  private pending: Settlement[] = [];
  /** Per period with pending settlements: Σ(cost − hold), what the store does not count yet. */
  private excess = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /**
   * Periods whose settlements are being written: the write, and whether any of them books more
   * than it held (only then is the store too generous until it lands; otherwise it is cautious).
   */
  private writing = new Map<string, { write: Promise<void>; generous: boolean }>();
  private tail: Promise<void> = Promise.resolve();
  /** Failed writes in a row: the pause before the next try grows with it. */
  private failures = 0;
  /** Batches put back so far: a batch taken before the latest put-back must land after it. */
  private requeues = 0;
  /** Set once the runtime opened it (after replaying what a crashed predecessor left). */
  journal: UsageJournal | undefined;

  constructor(
    private readonly usage: Pick<UsageRepo, 'settleMany'>,
    private readonly log: FastifyBaseLogger,
    private readonly intervalMs = 5,
    private readonly maxBatch = 500,
    private readonly maxRetryMs = 5_000,
  ) {}

  add(s: Settlement) {
    this.journal?.append(s);
    this.count(s);
    this.pending.push(s);
    // While writes fail, new settlements wait for the retry instead of hammering the store.
    if (this.pending.length >= this.maxBatch && !this.failures) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.intervalMs);
  }

  /** Settlements not yet written (queued or being retried). */
  get size(): number {
    return this.pending.length;
  }

  private count(s: Settlement) {
    const k = id(s.key);
    this.excess.set(k, (this.excess.get(k) ?? 0) + (s.entry?.costNano ?? 0) - s.reservedNano);
  }

  /** A batch that did not land goes back before anything queued since, and is retried. */
  private requeue(batch: Settlement[]) {
    this.putBack(batch);
    this.failures++;
    clearTimeout(this.timer);
    const pause = Math.min(this.maxRetryMs, this.intervalMs * 2 ** Math.min(this.failures, 20));
    this.timer = setTimeout(() => void this.flush(), pause);
  }

  /** Back into the queue in the order they were added (journal order), before anything newer. */
  private putBack(batch: Settlement[]) {
    for (const s of batch) this.count(s);
    this.requeues++;
    const merged = batch.concat(this.pending);
    // Only a batch that waited behind a failed one meets earlier ones here; sort only then.
    if (this.pending.length && (merged[0]?.seq ?? 0) > (this.pending[0]?.seq ?? 0))
      merged.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    this.pending = merged;
  }

  /** On shutdown: keep writing (retrying failures) until nothing is queued or `deadlineMs` passes. */
  async drain(deadlineMs = 10_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    await this.flush();
    while (this.pending.length && Date.now() < until) {
      await new Promise((r) => setTimeout(r, Math.min(this.maxRetryMs, 100 * this.failures)));
      await this.flush();
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length)
      this.log.error(
        { replies: this.pending.length },
        this.journal
          ? 'usage could not be settled before shutdown; the journal keeps it for the next start'
          : 'usage could not be settled before shutdown; these ledger rows are lost',
      );
    this.journal?.close(this.pending.length === 0);
    this.journal = undefined;
  }

  /** Before a reservation or a read of `key`: writes what the store must see to be exact or conservative. */
  async before(key: PeriodKey, exact = false): Promise<void> {
    const k = id(key);
    const e = this.excess.get(k);
    if (e !== undefined && (exact || e > 0)) await this.flush();
    const w = this.writing.get(k);
    // A reservation need not wait for settlements that only release more than they book.
    if (w && (exact || w.generous)) await w.write;
  }

  /** Whether anything of `key` is still to be written (a refused reservation is retried after it). */
  has(key: PeriodKey): boolean {
    return this.excess.has(id(key)) || this.writing.has(id(key));
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length) return this.tail;
    const batch = this.pending;
    const keys = [...this.excess];
    this.pending = [];
    this.excess = new Map();
    const taken = this.requeues;
    const write = this.tail.then(() => {
      // An earlier batch failed after this one was taken: it lands first, so the journal's mark
      // (the last settlement a batch books) always means "all before it are booked too".
      if (this.requeues !== taken) return this.putBack(batch);
      const mark = this.journal?.mark(batch[batch.length - 1]!);
      return this.usage.settleMany(batch, mark).then(
        (unbookedNano) => {
          this.failures = 0;
          if (!this.pending.length && this.tail === write) this.journal?.booked();
          // The router reported more than the allowance had room for: the operator's to take up.
          if (unbookedNano > 0)
            this.log.warn(
              { unbookedNano },
              'the router reported more usage than the allowance had room for; booked up to it',
            );
        },
        (err: Error) => {
          this.log.error({ replies: batch.length, err: err.message }, 'usage could not be settled; retrying');
          this.requeue(batch);
        },
      );
    });
    this.tail = write;
    // Writes land in order: waiting for this one waits for any earlier one of the same period.
    for (const [k, e] of keys) this.writing.set(k, { write, generous: e > 0 || !!this.writing.get(k)?.generous });
    void write.then(() => {
      for (const [k] of keys) if (this.writing.get(k)?.write === write) this.writing.delete(k);
    });
    return write;
  }
}
