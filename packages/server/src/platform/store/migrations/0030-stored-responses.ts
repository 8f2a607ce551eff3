// The Responses API's stored responses (issue 65, docs/decisions/0032-responses-api.md): what
// GET /responses/{id} answers and what a previous_response_id must name, shared by every replica
// and kept across restarts. A deployment's go with it (the foreign key); the newest
// STORED_RESPONSES_KEPT of each are kept (stored-responses.ts prunes on every write).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('stored_responses')
    .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull().references('deployments.id').onDelete('cascade'))
    .addColumn('id', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    // The `response` object as served, JSON.
    .addColumn('body', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('stored_responses_pk', ['deployment_id', 'id'])
    .execute();
  // The prune's "the newest N of this deployment" reads this index only.
  await db.schema
    .createIndex('stored_responses_deployment_created_idx')
    .on('stored_responses')
    .columns(['deployment_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stored_responses').execute();
}
