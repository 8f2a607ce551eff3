import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('email', 'varchar(320)', (c) => c.notNull().unique())
    .addColumn('webhook_secret_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
    .addColumn('hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('revoked_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('api_keys_user_idx').on('api_keys').column('user_id').execute();

  await db.schema
    .createTable('deployments')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'varchar(64)')
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('model_provider', 'varchar(64)', (c) => c.notNull())
    .addColumn('model_id', 'varchar(200)', (c) => c.notNull())
    .addColumn('channel_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('api_mode', 'varchar(16)', (c) => c.notNull())
    .addColumn('framework', 'varchar(64)', (c) => c.notNull())
    .addColumn('worker_name', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('worker_url', 'text')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('status_message', 'text')
    .addColumn('payment_status', 'varchar(16)', (c) => c.notNull())
    .addColumn('payment_subscription_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('current_period_end', 'varchar(32)', (c) => c.notNull())
    .addColumn('canceled_at', 'varchar(32)')
    .addColumn('is_prebuy', 'integer', (c) => c.notNull())
    .addColumn('user_callback_url', 'text')
    .addColumn('bot_token_enc', 'text')
    .addColumn('model_api_key_enc', 'text')
    .addColumn('gateway_token_enc', 'text')
    .addColumn('checkout_id', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('deployments_user_created_idx')
    .on('deployments')
    .columns(['user_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('deployments').execute();
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('users').execute();
}
