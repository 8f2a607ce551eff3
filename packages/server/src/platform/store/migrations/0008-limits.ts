import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Per-API-key request counters of the rate limit: one row per key, reused window after window,
  // so every control-plane replica on one PostgreSQL counts against the same number.
  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('key', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limit_counters').execute();
}
