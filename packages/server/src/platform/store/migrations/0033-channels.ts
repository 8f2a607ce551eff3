// Channels beside an assistant's Telegram bot (DESIGN §9.1) and the webhook updates they receive.
// assistant_channels: one row per (assistant, type); its credentials sealed with SECRETS_KEY in
// one JSON blob (write-only: no read path opens them but the ingress and the worker spec). One
// platform account (a WhatsApp phone number id) runs one assistant: the unique index on
// (type, account_id) settles two concurrent PUTs. Deleted assistants take their rows along.
// channel_updates: what a webhook accepted, written before the 200 and marked once the worker
// took it; the unique (channel_id, update_key) index answers a repeated update once.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('assistant_channels')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('secrets_enc', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('status_message', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('assistant_channels_deployment_type_idx')
    .on('assistant_channels')
    .columns(['deployment_id', 'type'])
    .unique()
    .execute();
  await db.schema
    .createIndex('assistant_channels_account_idx')
    .on('assistant_channels')
    .columns(['type', 'account_id'])
    .unique()
    .execute();
  await db.schema
    .createTable('channel_updates')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('channel_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('update_key', 'varchar(200)', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('delivered_at', 'varchar(32)')
    .execute();
  // Housekeeping drops updates past the platforms' retry window by this.
  await db.schema.createIndex('channel_updates_received_idx').on('channel_updates').column('received_at').execute();
  await db.schema
    .createIndex('channel_updates_key_idx')
    .on('channel_updates')
    .columns(['channel_id', 'update_key'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('channel_updates').execute();
  await db.schema.dropTable('assistant_channels').execute();
}
