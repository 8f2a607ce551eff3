// Fixed-window request counters of the per-key rate limit. One upsert counts and reads at once,
// so replicas sharing the database share the count without a read-modify-write.
//
// The counts of one event-loop turn go to the database together: every request that arrives in
// the same turn waits (until setImmediate, microseconds) and the turn's keys are counted by one
// multi-row upsert that adds each key's number of requests. A write transaction per request was
// half of the read path's CPU; one per turn costs the same whether one request or fifty came in.
// Still exact across replicas: each statement is atomic, and each request gets its own place in
// its key's count (the first of n requests sees count − n + 1, the last sees count).
//
// The per-person limit (`take`) also leases: the statement that counts a turn's requests takes a
// few more places of the count, and this replica's next requests get them without a write. With
// one client the turn held one request, so every request paid its own write transaction (2× the
// bare hop's CPU, decision 0027 round 5). A place is given once, to one request of one replica, so
// the limit is never passed; leased places a replica does not use are lost to the others until
// the window ends, so a person may be refused up to 1/LEASE_SHARE of the limit (and never more than
// LEASE_MAX places) per other replica before reaching it. A lease is sized from what was
// left at this replica's last read of the count in the window (the whole limit at its first call),
// so it shrinks as the count nears the limit. The sign-in counters (`hit`) never lease.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { type Markers, prepareQuery } from './prepared.js';

export interface WindowCount {
  count: number;
  /** Start of the window the count belongs to, Unix milliseconds. */
  windowStart: number;
}

/** Keys counted by one statement at most (its SQL is prepared once per number of keys). */
export const MAX_KEYS_PER_STATEMENT = 50;
/**
 * Places of a count one lease takes at most, beyond the turn's own requests. It binds only limits of
 * 65,600 a minute and more (below, LEASE_SHARE does): at the largest, 1,000,000, a replica's lease
 * strands at most 0.1 % of it, and a person calling at thousands a second costs one write per 1,025
 * calls, not per 65 (decision 0027, round 20).
 */
export const LEASE_MAX = 1024;
/** A lease takes at most this fraction (1/n) of what was left of the limit at this replica's last read. */
export const LEASE_SHARE = 64;
/** Leases kept before the first sweep of used-up and past windows' ones. */
const SWEEP_FROM = 10_000;

interface Waiting {
  windowStart: number;
  /** One per request of the key in this turn, in arrival order. */
  requests: Array<{ ok: (c: WindowCount) => void; fail: (err: Error) => void }>;
  /** Places asked for beyond the requests, for this replica's next requests (`take`). */
  extra: number;
  /** The limit the extra places are for: places above it are never leased. */
  max: number;
}

/** Places of a key's count this replica holds: `next` to `last`, in the window `windowStart`. */
interface Lease {
  windowStart: number;
  next: number;
  last: number;
  /** The count the database returned when the lease was taken (sizes the next one). */
  seen: number;
}

type Upsert = (...args: Array<string | number>) => Promise<{ rows: Array<Record<string, unknown>> }>;

export class RateLimitRepo {
  private readonly upserts = new Map<number, Upsert>();
  private waiting = new Map<string, Waiting>();
  private scheduled = false;
  private readonly leases = new Map<string, Lease>();
  /** The number of leases at which the next sweep runs. */
  private sweepAt = SWEEP_FROM;
  /** Keys whose lease is being taken (one at a time, so a replica strands one lease at most). */
  private readonly leasing = new Set<string>();

  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Counts one request of `key` in the window starting at `windowStart`. A later window restarts
   * the count; an earlier one (a replica whose clock lags) counts in the current window instead.
   */
  hit(key: string, windowStart: number): Promise<WindowCount> {
    return this.queue(key, windowStart, 0, 0);
  }

  /**
   * Like `hit`, for a limit of `max` a window: answers from this replica's lease when it holds a
   * place of the window (synchronously, no write), else counts with the turn and leases a few more.
   */
  take(key: string, windowStart: number, max: number): WindowCount | Promise<WindowCount> {
    const lease = this.leases.get(key);
    const current = lease && lease.windowStart >= windowStart ? lease : undefined;
    if (current && current.next <= current.last) return { count: current.next++, windowStart: current.windowStart };
    const seen = current?.seen ?? 0;
    const extra = this.leasing.has(key) ? 0 : Math.min(LEASE_MAX, Math.floor(Math.max(0, max - seen) / LEASE_SHARE));
    if (extra > 0) this.leasing.add(key);
    return this.queue(key, windowStart, extra, max);
  }

  private queue(key: string, windowStart: number, extra: number, max: number): Promise<WindowCount> {
    return new Promise((ok, fail) => {
      let w = this.waiting.get(key);
      if (!w) {
        w = { windowStart, requests: [], extra: 0, max: 0 };
        this.waiting.set(key, w);
      }
      w.windowStart = Math.max(w.windowStart, windowStart);
      w.requests.push({ ok, fail });
      if (extra > 0) {
        w.extra += extra;
        w.max = max;
      }
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush() {
    this.scheduled = false;
    // In key order: two replicas' statements then lock shared rows in the same order (PostgreSQL
    // would otherwise abort one of them as a deadlock when their keys overlap in another order).
    const turn = [...this.waiting].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.waiting = new Map();
    for (let i = 0; i < turn.length; i += MAX_KEYS_PER_STATEMENT)
      void this.count(turn.slice(i, i + MAX_KEYS_PER_STATEMENT));
  }

  private async count(keys: Array<[string, Waiting]>) {
    try {
      const args = keys.flatMap(([key, w]) => [key, w.windowStart, w.requests.length + w.extra]);
      const { rows } = await this.upsertOf(keys.length)(...args);
      const byKey = new Map(rows.map((r) => [String(r.key), r]));
      for (const [key, w] of keys) {
        const row = byKey.get(key);
        if (!row) throw new Error('rate limit counter upsert returned no row');
        const count = Number(row.count);
        const windowStart = Number(row.window_start);
        const first = count - w.requests.length - w.extra + 1;
        if (w.extra > 0)
          this.lease(key, { windowStart, next: first + w.requests.length, last: Math.min(count, w.max), seen: count });
        for (const [i, r] of w.requests.entries()) r.ok({ count: first + i, windowStart });
      }
    } catch (err) {
      for (const [key, w] of keys) {
        if (w.extra > 0) this.leasing.delete(key);
        for (const r of w.requests) r.fail(err as Error);
      }
    }
  }

  /** Leases this replica keeps (bounded: see `lease`). */
  get leaseCount(): number {
    return this.leases.size;
  }

  private lease(key: string, lease: Lease) {
    this.leasing.delete(key);
    // Leases of people who stopped calling are dropped once there are many: used up, or of an
    // earlier window (its places are gone with the window anyway). Dropping one only loses places,
    // so a person is refused sooner, never later.
    // The next sweep waits until the map has doubled, so its cost stays a constant per lease however
    // many people call in one window.
    if (this.leases.size >= this.sweepAt) {
      for (const [k, l] of this.leases) if (l.next > l.last || l.windowStart < lease.windowStart) this.leases.delete(k);
      this.sweepAt = Math.max(SWEEP_FROM, this.leases.size * 2);
    }
    this.leases.set(key, lease);
  }

  /** The upsert of `n` keys, compiled once per `n` (see prepared.ts). */
  private upsertOf(n: number): Upsert {
    let q = this.upserts.get(n);
    if (!q) {
      const row = (m: Markers, i: number) => ({
        key: m.text(3 * i),
        window_start: m.int(3 * i + 1),
        count: m.int(3 * i + 2),
      });
      q = prepareQuery(this.db, (m) =>
        this.db
          .insertInto('rate_limit_counters')
          .values(Array.from({ length: n }, (_, i) => row(m, i)))
          .onConflict((oc) =>
            oc.column('key').doUpdateSet({
              count: sql`CASE WHEN excluded.window_start > rate_limit_counters.window_start THEN excluded.count
              ELSE rate_limit_counters.count + excluded.count END`,
              window_start: sql`CASE WHEN excluded.window_start > rate_limit_counters.window_start
              THEN excluded.window_start ELSE rate_limit_counters.window_start END`,
            }),
          )
          .returning(['key', 'count', 'window_start']),
      ) as Upsert;
      this.upserts.set(n, q);
    }
    return q;
  }

  /** Without counting: what `key` has used in its current window (0 once the window is over). */
  async read(key: string, windowStart: number): Promise<WindowCount> {
    const row = await this.db
      .selectFrom('rate_limit_counters')
      .select(['count', 'window_start'])
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row || Number(row.window_start) < windowStart) return { count: 0, windowStart };
    return { count: Number(row.count), windowStart: Number(row.window_start) };
  }
}
