import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The operator's per-assistant choice of Kubernetes placement (shared or dedicated); an
  // assistant without a row follows KUBERNETES_PLACEMENT.
  await db.schema
    .createTable('placement_choices')
    .addColumn('worker_name', 'varchar(63)', (c) => c.primaryKey())
    .addColumn('placement', 'varchar(16)', (c) => c.notNull())
    .addColumn('chosen_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('placement_choices').execute();
}
