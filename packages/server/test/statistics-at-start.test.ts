// A control plane started on a PostgreSQL database whose tables were loaded without planner
// statistics (a restore from a dump, a bulk load, before autovacuum's first look) gathers them
// before its restoring pass reads the desired state, and says so (platform/store/statistics.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createRuntime, loadConfig } from '../src/index.js';
import { openStore } from '../src/platform/store/database.js';
import { freshenStatistics } from '../src/platform/store/statistics.js';
import { createTestDatabase, databaseEnv, DIALECT } from './helpers/database.js';
import { capturingLogger } from './helpers/logs.js';
import { FakeWorkers } from './helpers/fake-workers.js';
import { until } from './helpers/until.js';

test('a control plane on a database loaded without statistics analyzes it before its restoring pass, and says so', {
  skip: DIALECT !== 'postgres' && 'PostgreSQL only',
}, async () => {
  const db = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-stats-'));
  try {
    // The database as a restore leaves it: the schema, rows, no statistics.
    const loaded = await openStore({ databaseUrl: db.url, dataDir });
    await sql`ALTER TABLE users SET (autovacuum_enabled = false)`.execute(loaded.db);
    await sql`
        INSERT INTO users (id, email, webhook_secret_enc, created_at)
        SELECT 'u-' || g, 'u' || g || '@example.com', 'x', '2026-01-01T00:00:00.000Z'
        FROM generate_series(1, 2000) g`.execute(loaded.db);
    await loaded.close();
    const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://berth.test', ...databaseEnv(db) });
    const { lines, logger } = capturingLogger('info');
    const runtime = await createRuntime(config, { workers: new FakeWorkers(), logger });
    try {
      await runtime.restored;
      const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'users'`.execute(
        runtime.store.db,
      );
      assert.ok(rows[0]!.n > 0, 'the users table has statistics');
      const said = lines.map((l) => JSON.parse(l)).filter((l) => /had no planner statistics/.test(l.msg));
      assert.equal(said.length, 1, 'said once');
      assert.deepEqual(said[0].tables, ['users'], 'naming the tables of 1,000 rows or more');
    } finally {
      await runtime.close();
    }
  } finally {
    await db.drop();
  }
});

test('tables another session holds locked are left for autovacuum and said, not waited for; the others are analyzed', {
  skip: DIALECT !== 'postgres' && 'PostgreSQL only',
  // Without the lock timeout, ANALYZE waits for the transaction that waits for it: a hang, cut here.
  timeout: 60_000,
}, async () => {
  const db = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-stats-'));
  const store = await openStore({ databaseUrl: db.url, dataDir });
  try {
    for (const table of ['users', 'rate_limit_counters'])
      await sql`ALTER TABLE ${sql.id(table)} SET (autovacuum_enabled = false)`.execute(store.db);
    await sql`
        INSERT INTO users (id, email, webhook_secret_enc, created_at)
        SELECT 'u-' || g, 'u' || g || '@example.com', 'x', '2026-01-01T00:00:00.000Z'
        FROM generate_series(1, 2000) g`.execute(store.db);
    await sql`
        INSERT INTO rate_limit_counters (key, window_start, count)
        SELECT 'k-' || g, 0, 1 FROM generate_series(1, 2000) g`.execute(store.db);
    // A session that holds the lock ANALYZE needs on users, as a VACUUM or another ANALYZE does,
    // and a migration's lock on sessions (empty, no statistics), which even reading its size waits for.
    // Over deadlock_timeout (1 s): an autovacuum on another table is cancelled before it counts as busy.
    const during = await store.db.transaction().execute(async (tx) => {
      await sql`LOCK TABLE users IN SHARE UPDATE EXCLUSIVE MODE`.execute(tx);
      await sql`LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE`.execute(tx);
      const t0 = performance.now();
      const freshened = await freshenStatistics(store.db, { lockTimeoutMs: 1500 });
      return { ...freshened, ms: performance.now() - t0 };
    });
    assert.deepEqual(during.busy, ['sessions', 'users'], 'the locked tables are said');
    assert.deepEqual(during.analyzed, ['rate_limit_counters'], 'the other table is analyzed all the same');
    assert.ok(during.ms < 10_000, `the lock was not waited for (${Math.round(during.ms)} ms)`);
    const after = await freshenStatistics(store.db, { lockTimeoutMs: 1500 });
    assert.deepEqual(after, { analyzed: ['users'], busy: [] }, 'once free, the next start analyzes it');
  } finally {
    await store.close();
    await db.drop();
  }
});

test('a table analyzed at a few rows and loaded in bulk since is analyzed again at start, vacuumed or not; once analyzed, it is left alone', {
  skip: DIALECT !== 'postgres' && 'PostgreSQL only',
}, async () => {
  const db = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-stats-'));
  const store = await openStore({ databaseUrl: db.url, dataDir });
  const users = (from: number, to: number) => sql`
      INSERT INTO users (id, email, webhook_secret_enc, created_at)
      SELECT 'u-' || g, 'u' || g || '@example.com', 'x', '2026-01-01T00:00:00.000Z'
      FROM generate_series(${from}::int, ${to}::int) g`;
  const counted = async () =>
    (
      await sql<{ tuples: number; changed: number; live: number }>`
        SELECT reltuples::int AS tuples, pg_stat_get_mod_since_analyze(oid)::int AS changed,
          pg_stat_get_live_tuples(oid)::int AS live
        FROM pg_class WHERE oid = 'users'::regclass`.execute(store.db)
    ).rows[0]!;
  // A change's counts reach the statistics views when its session next goes idle: forced, and
  // waited for (before a VACUUM or ANALYZE, which would count them otherwise).
  const changing = async (change: ReturnType<typeof sql>, changed: number) => {
    await store.db.transaction().execute(async (tx) => {
      await change.execute(tx);
      await sql`SELECT pg_stat_force_next_flush()`.execute(tx);
    });
    await until(
      'the change to show in pg_stat',
      async () => (await counted()).changed >= changed || undefined,
      20_000,
      100,
    );
  };
  try {
    // As bench:scale's store was: analyzed by a first start at a few rows, then grown.
    await sql`ALTER TABLE users SET (autovacuum_enabled = false)`.execute(store.db);
    await changing(users(1, 5), 5);
    await sql`ANALYZE users`.execute(store.db);
    await changing(users(6, 2005), 2000);
    assert.ok((await counted()).tuples < 10, 'the planner takes the table for its few rows');
    const first = await freshenStatistics(store.db);
    assert.ok(first.analyzed.includes('users'), `analyzed and said: ${first.analyzed.join(', ')}`);
    assert.ok((await counted()).tuples >= 2000, 'the planner now counts its rows');
    const again = await freshenStatistics(store.db);
    assert.ok(!again.analyzed.includes('users'), 'not analyzed again at the next start');
    // Loaded again, then vacuumed (as autovacuum may do first): the planner's row count is right,
    // the column statistics still those of the first 2,005 rows.
    await changing(users(2006, 6005), 4000);
    await sql`VACUUM users`.execute(store.db);
    assert.ok((await counted()).tuples >= 6000, 'VACUUM counted the rows');
    const vacuumed = await freshenStatistics(store.db);
    assert.ok(vacuumed.analyzed.includes('users'), `analyzed after a VACUUM too: ${vacuumed.analyzed.join(', ')}`);
    assert.equal((await counted()).changed, 0, 'its statistics are new');
    // A crash, a failover or a reset zeroes the counters, the live rows' too, and not the
    // planner's count: 100 updates of a 6,005-row table are not stale statistics.
    await sql`SELECT pg_stat_reset()`.execute(store.db);
    await changing(
      sql`UPDATE users SET webhook_secret_enc = 'y' WHERE id IN (SELECT id FROM users ORDER BY id LIMIT 100)`,
      100,
    );
    assert.equal((await counted()).live, 0, 'the reset zeroed the live rows');
    const reset = await freshenStatistics(store.db);
    assert.ok(!reset.analyzed.includes('users'), `not analyzed after a reset: ${reset.analyzed.join(', ')}`);
  } finally {
    await store.close();
    await db.drop();
  }
});
