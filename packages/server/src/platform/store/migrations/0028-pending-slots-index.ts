// Housekeeping looks for abandoned slots (a checkout never paid, tombstones.ts buryAbandoned) every
// minute: without an index that read scanned the whole deployments table, one synchronous read of
// about 100 ms at 100,000 deployments on SQLite (issue 30: no stall over 20 ms from the
// reconciler). A partial index holds only the unpaid slots, so it stays as small as they are few.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('deployments_pending_created_idx')
    .on('deployments')
    .column('created_at')
    .where(sql.ref('payment_status'), '=', 'pending')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('deployments_pending_created_idx').execute();
}
