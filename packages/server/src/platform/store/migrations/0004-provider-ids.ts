import { PostgresAdapter, type Kysely } from 'kysely';

// Provider ids are longer than their documentation's examples: a Stripe Checkout Session id is
// 66 characters (cs_test_ + 58), so checkout_id (varchar(64)) refused every real purchase on
// PostgreSQL. Every column that holds a provider id is now varchar(255), as Stripe advises.
// SQLite ignores declared lengths, so there is nothing to change there.
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema
    .alterTable('deployments')
    .alterColumn('checkout_id', (c) => c.setDataType('varchar(255)'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema
    .alterTable('deployments')
    .alterColumn('checkout_id', (c) => c.setDataType('varchar(64)'))
    .execute();
}
