import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Each payment provider event is applied once.
  await db.schema
    .createTable('payment_events')
    .addColumn('id', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('type', 'varchar(100)', (c) => c.notNull())
    .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  // Client Idempotency-Key on purchase, kept 24 h per user.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key', 'varchar(255)', (c) => c.notNull())
    .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('response', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'key'])
    .execute();
  // When the newest subscription event we applied happened (events arrive out of order).
  await db.schema.alterTable('deployments').addColumn('payment_event_at', 'integer').execute();
  await db.schema
    .createIndex('deployments_subscription_idx')
    .on('deployments')
    .column('payment_subscription_id')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('deployments_subscription_idx').execute();
  await db.schema.alterTable('deployments').dropColumn('payment_event_at').execute();
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.dropTable('payment_events').execute();
}
