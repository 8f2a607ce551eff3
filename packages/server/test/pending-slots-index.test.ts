// Housekeeping looks for abandoned slots every minute (tombstones.ts buryAbandoned). At 100,000
// deployments a scan of the table was one synchronous SQLite read of ~100 ms, a stall of every
// request (issue 30); migration 0028-pending-slots-index gives the read a partial index.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore } from '../src/platform/store/database.js';

test("housekeeping's read of abandoned slots walks an index of unpaid slots, not the deployments table", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-pending-idx-'));
  const store = await openStore({ dataDir: dir });
  try {
    // The read buryAbandoned makes (its columns do not change the plan).
    const q = store.db
      .selectFrom('deployments')
      .selectAll()
      .where('payment_status', '=', 'pending')
      .where('status', '=', 'purchased')
      .where('created_at', '<', '2026-01-01T00:00:00.000Z')
      .limit(500)
      .compile();
    const { rows } = await store.db.executeQuery<{ detail: string }>({
      ...sql.raw(`EXPLAIN QUERY PLAN ${q.sql}`).compile(store.db),
      parameters: q.parameters,
    });
    const details = rows.map((r) => r.detail).join('; ');
    assert.match(details, /USING INDEX deployments_pending_created_idx/);
    assert.doesNotMatch(details, /SCAN deployments/);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
