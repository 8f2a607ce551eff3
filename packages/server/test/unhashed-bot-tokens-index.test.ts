// Every start looks for bot tokens without a hash (backfillBotTokenHashes) before it listens. At
// 100,000 deployments a scan of the table was ~400 ms of a PostgreSQL start (issue 30: start →
// ready ≤ 1.5 s); migration 0029-unhashed-bot-tokens-index gives the read a partial index. The plan
// asked for is the repo's own read, so a change to its WHERE that the index no longer serves fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompiledQuery, type KyselyPlugin, sql } from 'kysely';
import { openStore } from '../src/platform/store/database.js';
import { DeploymentRepo } from '../src/platform/store/deployments.js';
import { createTestDatabase, DIALECT } from './helpers/database.js';

test(`store on ${DIALECT}: the start's read of bot tokens without a hash walks an index of those rows, not the deployments table`, async () => {
  const db = await createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'berth-unhashed-idx-'));
  const store = await openStore({ databaseUrl: db.url, dataDir: dir });
  try {
    // The query as it last stood before it ran (plugins see each step of the builder), by its id.
    const built = new Map<unknown, CompiledQuery>();
    const ran: CompiledQuery[] = [];
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        built.set(args.queryId, store.db.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: async (args) => {
        ran.push(built.get(args.queryId)!);
        return args.result;
      },
    };
    await new DeploymentRepo(store.db.withPlugin(capture)).listMissingBotTokenHash();
    assert.equal(ran.length, 1);
    const q = ran[0]!;
    assert.match(q.sql, /from "deployments"/);
    const plan = await store.db.connection().execute(async (c) => {
      // An empty table costs nothing to scan: PostgreSQL is asked for its plan with scans priced out.
      if (DIALECT === 'postgres') await sql`SET enable_seqscan = off`.execute(c);
      const explain = DIALECT === 'postgres' ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN';
      const { rows } = await c.executeQuery<Record<string, string>>({
        ...sql.raw(`${explain} ${q.sql}`).compile(c),
        parameters: q.parameters,
      });
      if (DIALECT === 'postgres') await sql`RESET enable_seqscan`.execute(c);
      return rows.map((r) => r.detail ?? r['QUERY PLAN']).join('; ');
    });
    assert.match(plan, /deployments_unhashed_bot_token_idx/, plan);
    assert.doesNotMatch(plan, /SCAN deployments(?! USING)|Seq Scan/, plan);
  } finally {
    await store.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});
