// An assistant's MCP servers (DESIGN §9.2, decision 0033): one row per (deployment, name), the
// headers sealed with SECRETS_KEY (never stored or backed up in clear), the enabled tools as JSON.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mcp_servers')
    .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('name', 'varchar(32)', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('headers_enc', 'text')
    .addColumn('enabled_tools', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('mcp_servers_pk', ['deployment_id', 'name'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mcp_servers').execute();
}
