import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Named leases: which replica runs a singleton loop (the workers reconciler) until when.
  await db.schema
    .createTable('leases')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('holder', 'varchar(64)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('leases').execute();
}
