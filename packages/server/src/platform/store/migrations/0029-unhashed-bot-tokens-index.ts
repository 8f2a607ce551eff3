// Every start looks for deployments whose bot token has no hash yet (bot-token-owner.ts
// backfillBotTokenHashes, for rows written before the hash existed) before it listens: without an
// index that read scanned the whole deployments table, ~400 ms of a PostgreSQL control plane's
// start at 100,000 deployments (issue 30: start → ready ≤ 1.5 s). A partial index holds only those
// rows, none once the backfill has run.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('deployments_unhashed_bot_token_idx')
    .on('deployments')
    .column('id')
    .where((eb) => eb.and([eb(sql.ref('bot_token_hash'), 'is', null), eb(sql.ref('bot_token_enc'), 'is not', null)]))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('deployments_unhashed_bot_token_idx').execute();
}
