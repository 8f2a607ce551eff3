// Fixed-window request counters of the per-key rate limit. One upsert per request counts and
// reads at once, so replicas sharing the database share the count without a read-modify-write.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { prepareQuery } from './prepared.js';

export interface WindowCount {
  count: number;
  /** Start of the window the count belongs to, Unix milliseconds. */
  windowStart: number;
}

export class RateLimitRepo {
  // Run on every counted request: compiled once (see prepared.ts).
  private readonly upsert;

  constructor(private readonly db: Kysely<Database>) {
    this.upsert = prepareQuery(db, (m) =>
      db
        .insertInto('rate_limit_counters')
        .values({ key: m.text(0), window_start: m.int(1), count: 1 })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            count: sql`CASE WHEN excluded.window_start > rate_limit_counters.window_start THEN 1
            ELSE rate_limit_counters.count + 1 END`,
            window_start: sql`CASE WHEN excluded.window_start > rate_limit_counters.window_start
            THEN excluded.window_start ELSE rate_limit_counters.window_start END`,
          }),
        )
        .returning(['count', 'window_start']),
    );
  }

  /**
   * Counts one request of `key` in the window starting at `windowStart`. A later window restarts
   * the count; an earlier one (a replica whose clock lags) counts in the current window instead.
   */
  async hit(key: string, windowStart: number): Promise<WindowCount> {
    const row = (await this.upsert(key, windowStart)).rows[0];
    if (!row) throw new Error('rate limit counter upsert returned no row');
    return { count: Number(row.count), windowStart: Number(row.window_start) };
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
