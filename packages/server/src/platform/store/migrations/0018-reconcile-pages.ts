import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The reconciler reads the deployments that want a worker a page at a time in id order, and
  // between full reads only those written since its watermark (services/desired-index.ts): both
  // reads walk an index in their own order and stop after a page.
  await db.schema.createIndex('deployments_desired_id_idx').on('deployments').columns(['desired', 'id']).execute();
  await db.schema.createIndex('deployments_updated_idx').on('deployments').columns(['updated_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('deployments_updated_idx').execute();
  await db.schema.dropIndex('deployments_desired_id_idx').execute();
}
