// Every start looks for bot tokens without a hash (backfillBotTokenHashes) before it listens. At
// 100,000 deployments a scan of the table was ~400 ms of a PostgreSQL start (issue 30: start →
// ready ≤ 1.5 s); migration 0029-unhashed-bot-tokens-index gives the read a partial index.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore } from '../src/platform/store/database.js';

test("the start's read of bot tokens without a hash walks an index of those rows, not the deployments table", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-unhashed-idx-'));
  const store = await openStore({ dataDir: dir });
  try {
    // The read listMissingBotTokenHash makes.
    const q = store.db
      .selectFrom('deployments')
      .select(['id', 'bot_token_enc'])
      .where('bot_token_enc', 'is not', null)
      .where('bot_token_hash', 'is', null)
      .compile();
    const { rows } = await store.db.executeQuery<{ detail: string }>({
      ...sql.raw(`EXPLAIN QUERY PLAN ${q.sql}`).compile(store.db),
      parameters: q.parameters,
    });
    const details = rows.map((r) => r.detail).join('; ');
    assert.match(details, /USING INDEX deployments_unhashed_bot_token_idx/);
    assert.doesNotMatch(details, /SCAN deployments(?! USING)/);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
