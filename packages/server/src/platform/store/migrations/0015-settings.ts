import type { Kysely } from 'kysely';
import { sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Versions of an assistant's settings document (DESIGN §7.1), the last ten kept. Version 1 of a
  // deployment is the defaults and is not stored until the first change (services/settings/):
  // existing deployments need no backfill. The primary key is what keeps two concurrent PUTs
  // from writing the same version.
  await db.schema
    .createTable('assistant_settings')
    .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('assistant_settings_pk', ['deployment_id', 'version'])
    .execute();
  // One bot token runs one assistant: a keyed hash of the token (the token itself stays sealed)
  // under a unique index, so two concurrent activations with one token cannot both be written.
  // Deleted deployments leave the table, so their tokens are free again.
  await db.schema.alterTable('deployments').addColumn('bot_token_hash', 'varchar(64)').execute();
  await db.schema
    .createIndex('deployments_bot_token_hash_idx')
    .on('deployments')
    .column('bot_token_hash')
    .unique()
    .where(sql.ref('bot_token_hash'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('deployments_bot_token_hash_idx').execute();
  await db.schema.alterTable('deployments').dropColumn('bot_token_hash').execute();
  await db.schema.dropTable('assistant_settings').execute();
}
