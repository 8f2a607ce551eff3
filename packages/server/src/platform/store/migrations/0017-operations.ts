import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One row per alert cause (ops/alerts.ts): when it was last sent. Every replica claims a cause
  // through this row, so an alert goes out once per cause and window however many replicas see it.
  await db.schema
    .createTable('alert_causes')
    .addColumn('cause', 'varchar(200)', (c) => c.primaryKey())
    .addColumn('last_sent_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  // The operator's suspension (admin deployments suspend): while set, the deployment's desire is
  // `stopped` whatever its owner asks, and only `admin deployments resume` clears it.
  await db.schema.alterTable('deployments').addColumn('suspended_reason', 'varchar(500)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('deployments').dropColumn('suspended_reason').execute();
  await db.schema.dropTable('alert_causes').execute();
}
