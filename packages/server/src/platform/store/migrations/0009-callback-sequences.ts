import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The last callback sequence number of each deployment: every callback payload carries the next
  // one, so a receiver can always tell the newest state. Kept after a deployment is deleted, so a
  // late event never reuses a number.
  await db.schema
    .createTable('callback_sequences')
    .addColumn('deployment_id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('last', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('callback_sequences').execute();
}
