import type { Kysely } from 'kysely';

// Money is stored as whole nano-dollars (1e-9 USD) in bigint columns: exact sums on both
// databases, and a catalog price of 0.15 USD per million tokens is 150 nano-dollars per token.
export async function up(db: Kysely<any>): Promise<void> {
  // One row per deployment and billing period: the allowance and the single row every concurrent
  // reservation updates conditionally, so no two callers can spend the same credit.
  await db.schema
    .createTable('usage_periods')
    .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull().references('deployments.id').onDelete('cascade'))
    .addColumn('period_end', 'varchar(32)', (c) => c.notNull())
    .addColumn('allowance_nano', 'bigint')
    .addColumn('reserved_nano', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('used_nano', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('exhausted_notified', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_periods_pk', ['deployment_id', 'period_end'])
    .execute();
  // The ledger: one row per metered reply, with the provider's own token counts.
  await db.schema
    .createTable('usage_records')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull().references('deployments.id').onDelete('cascade'))
    .addColumn('period_end', 'varchar(32)', (c) => c.notNull())
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('source', 'varchar(16)', (c) => c.notNull())
    .addColumn('model', 'varchar(255)', (c) => c.notNull())
    .addColumn('prompt_tokens', 'integer', (c) => c.notNull())
    .addColumn('completion_tokens', 'integer', (c) => c.notNull())
    .addColumn('cost_nano', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('usage_records_period_idx')
    .on('usage_records')
    .columns(['deployment_id', 'period_end', 'day'])
    .execute();
  // A spend cap the owner of a byok deployment sets for their own key.
  await db.schema
    .createTable('usage_limits')
    .addColumn('deployment_id', 'varchar(36)', (c) => c.primaryKey().references('deployments.id').onDelete('cascade'))
    .addColumn('monthly_cap_nano', 'bigint')
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_limits').execute();
  await db.schema.dropTable('usage_records').execute();
  await db.schema.dropTable('usage_periods').execute();
}
