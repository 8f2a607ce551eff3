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
import { createTestDatabase, databaseEnv, DIALECT } from './helpers/database.js';
import { capturingLogger } from './helpers/logs.js';
import { FakeWorkers } from './helpers/fake-workers.js';

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
