import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Which agent host (a StatefulSet ordinal) holds each assistant in the Kubernetes backend's
  // shared placement. Shared by every control-plane replica.
  await db.schema
    .createTable('worker_placements')
    .addColumn('worker_name', 'varchar(63)', (c) => c.primaryKey())
    .addColumn('host', 'integer', (c) => c.notNull())
    .addColumn('placed_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('worker_placements_host_idx').on('worker_placements').column('host').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('worker_placements').execute();
}
