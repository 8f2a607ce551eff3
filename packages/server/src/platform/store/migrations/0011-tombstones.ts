import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // What is left of a deleted deployment until its worker and subscription are cleaned up and the
  // retention has passed: enough for a late payment event to find it.
  await db.schema
    .createTable('deployment_tombstones')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('worker_name', 'varchar(63)', (c) => c.notNull())
    .addColumn('checkout_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('payment_subscription_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('deleted_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('deployment_tombstones_subscription_idx')
    .on('deployment_tombstones')
    .column('payment_subscription_id')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('deployment_tombstones').execute();
}
