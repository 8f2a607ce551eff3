import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Desired state (what the user last asked for: a worker `running`, or `stopped`) and observed
  // state (what the workers backend last reported for this generation's worker) next to the
  // status the state machine derives from them. A deleted deployment's desire lives on as its
  // tombstone (0011). Backfilled from the status, which until now stood for both.
  await db.schema
    .alterTable('deployments')
    .addColumn('desired', 'varchar(16)', (c) => c.notNull().defaultTo('stopped'))
    .execute();
  await db.schema
    .alterTable('deployments')
    .addColumn('observed', 'varchar(16)', (c) => c.notNull().defaultTo('absent'))
    .execute();
  await db
    .updateTable('deployments')
    .set({ desired: 'running' })
    .where('status', 'in', ['deploying', 'active'])
    .execute();
  await db.updateTable('deployments').set({ observed: 'ready' }).where('status', '=', 'active').execute();
  await db.updateTable('deployments').set({ observed: 'failed' }).where('status', '=', 'failed').execute();
  // The reconciler asks for every deployment that wants a worker on each pass.
  await db.schema.createIndex('deployments_desired_idx').on('deployments').column('desired').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('deployments_desired_idx').execute();
  await db.schema.alterTable('deployments').dropColumn('observed').execute();
  await db.schema.alterTable('deployments').dropColumn('desired').execute();
}
