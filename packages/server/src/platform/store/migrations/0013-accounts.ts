import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Accounts (docs/decisions/0019): a password for users who sign in to the dashboard (null for
  // users an operator created with `admin create-key`), browser sessions, organizations with
  // members, and invitations (to sign up while SIGNUP=closed, or to join an organization).
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('last_seen_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('organizations')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('organization_id', 'varchar(36)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('joined_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['organization_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user_idx').on('memberships').column('user_id').execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('email', 'varchar(320)', (c) => c.notNull())
    // null: an invitation to sign up (SIGNUP=closed); else to join this organization with `role`.
    .addColumn('organization_id', 'varchar(36)', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('role', 'varchar(16)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('used_at', 'varchar(32)')
    .execute();

  // A key belongs to its creator (user_id) or, with organization_id, to that organization.
  await db.schema.alterTable('api_keys').addColumn('organization_id', 'varchar(36)').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('name', 'varchar(100)', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'varchar(32)').execute();
  await db.schema.createIndex('api_keys_org_idx').on('api_keys').column('organization_id').execute();
  await db.schema
    .createIndex('deployments_org_created_idx')
    .on('deployments')
    .columns(['organization_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('deployments_org_created_idx').execute();
  await db.schema.dropIndex('api_keys_org_idx').execute();
  await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
  await db.schema.alterTable('api_keys').dropColumn('name').execute();
  await db.schema.alterTable('api_keys').dropColumn('organization_id').execute();
  await db.schema.dropTable('invitations').execute();
  await db.schema.dropTable('memberships').execute();
  await db.schema.dropTable('organizations').execute();
  await db.schema.dropTable('sessions').execute();
  await db.schema.alterTable('users').dropColumn('password_hash').execute();
}
