// PostgreSQL plans from each table's statistics, which ANALYZE (or autovacuum, a minute or more
// after enough rows changed) gathers. A database just restored from a dump or bulk-loaded has
// none: the planner then takes the deployments table for a few rows, and the restoring pass's
// page of the desired state (`desired = 'running' AND id > $1 ORDER BY id LIMIT 250`) ran as a
// bitmap scan of every row after the cursor, then a sort: 90–140 ms a page at 100,000, 37 s for
// the start-up pass instead of a second or two (bench:scale). A table without column statistics
// is analyzed at start-up (reltuples alone is no sign: a restore's CREATE INDEX sets it, and an
// empty table analyzed before its rows were loaded has it at 0); then autovacuum keeps them
// current as before. A table with no data pages is left out: it has no statistics even after
// ANALYZE, and would be analyzed again at every start for nothing. SQLite plans without them.
//
// Statistics can also be there and wrong: a table analyzed at a few rows (a first start, a
// restore's first rows) and loaded in bulk since, before autovacuum's next look (a minute or
// more). bench:scale's store was analyzed at 1 row by the control plane that created its first
// deployment, then grown to 100,000: the planner took it for one row, and the start-up pass took
// 20–29 s instead of 5–7 (decision 0027, round 16). So a table is also analyzed when more of its
// rows changed since its last ANALYZE than half those it holds (plus STALE_SLACK): its statistics
// describe under half of it. Half, not all: a VACUUM after the load (autovacuum's insert
// threshold) counts every row, the load's too, while the column statistics stay as they were, so
// "more changed than it holds" never fires then. What it holds is the larger of the live rows
// (pg_stat) and the planner's count (reltuples): a crash, a failover or pg_stat_reset() zeroes
// the first and not the second, and would otherwise make every table with 50 changes look stale.
// Half is far more than autovacuum waits for (10 % by default), so a steady store analyzes
// nothing at a restart (but a small table updated faster than autovacuum looks, in milliseconds);
// a bulk load, a large backfill or heavy churn is analyzed at the next start.
//
// ANALYZE waits for a lock that conflicts with its own (another ANALYZE or VACUUM, a migration's
// DDL), and so does reading a table's size, and the restoring pass waits for both: each table is
// given LOCK_TIMEOUT_MS, then left for autovacuum and said. An autovacuum in the way is cancelled
// by PostgreSQL itself after deadlock_timeout (1 s by default), unless it runs to prevent
// transaction ID wraparound: only that one can make a table busy.
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/** Below this many rows a table's plan hardly depends on its statistics: not worth saying. */
const WORTH_SAYING = 1000;
/** Rows changed beyond half those held before statistics count as stale (autovacuum's base threshold). */
const STALE_SLACK = 50;
/** How long each table's steps (reading its size, its ANALYZE) wait for a lock. */
export const LOCK_TIMEOUT_MS = 5000;

export interface Freshened {
  /** Tables of WORTH_SAYING rows or more that were analyzed. */
  analyzed: string[];
  /** Tables whose lock was held by another session past the timeout: left for autovacuum. */
  busy: string[];
}

/**
 * PostgreSQL: ANALYZE this role's tables of the current schema that hold data but have no column
 * statistics, or stale ones (more rows changed since the last ANALYZE than half it holds). Says
 * those of WORTH_SAYING rows or more (a restored or bulk-loaded database's; a new one's first
 * start analyzes its few small tables without a word), and those it found busy.
 */
export async function freshenStatistics(
  db: Kysely<Database>,
  opts: { lockTimeoutMs?: number } = {},
): Promise<Freshened> {
  // The catalog alone here: pg_relation_size opens the table, and waits for any lock that
  // conflicts with reading it (a migration's DDL holds one), so it runs with the timeout below.
  const { rows } = await sql<{ name: string; oid: string }>`
    SELECT c.relname AS name, c.oid::text AS oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND pg_has_role(c.relowner, 'USAGE')
      AND (
        NOT EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = n.nspname AND s.tablename = c.relname)
        OR pg_stat_get_mod_since_analyze(c.oid)
          > GREATEST(pg_stat_get_live_tuples(c.oid), c.reltuples::bigint) / 2 + ${STALE_SLACK}
      )
    ORDER BY c.relname`.execute(db);
  if (rows.length === 0) return { analyzed: [], busy: [] };
  const timeout = `${Math.max(1, Math.round(opts.lockTimeoutMs ?? LOCK_TIMEOUT_MS))}ms`;
  const done: string[] = [];
  const busy: string[] = [];
  for (const { name, oid } of rows) {
    try {
      const analyzed = await db.transaction().execute(async (tx) => {
        await sql`SELECT set_config('lock_timeout', ${timeout}, true)`.execute(tx);
        const { rows: size } = await sql<{ pages: boolean }>`
          SELECT pg_relation_size(${oid}::oid::regclass) > 0 AS pages`.execute(tx);
        if (!size[0]?.pages) return false;
        await sql`ANALYZE ${sql.id(name)}`.execute(tx);
        return true;
      });
      if (analyzed) done.push(name);
    } catch (err) {
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
      busy.push(name);
    }
  }
  if (done.length === 0) return { analyzed: [], busy };
  const { rows: big } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relname = ANY(${done}) AND c.reltuples >= ${WORTH_SAYING}
    ORDER BY c.relname`.execute(db);
  return { analyzed: big.map((r) => r.name), busy };
}

/** PostgreSQL's SQLSTATE when lock_timeout ends a wait for a lock. */
const LOCK_NOT_AVAILABLE = '55P03';
