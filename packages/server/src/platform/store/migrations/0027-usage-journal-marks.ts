import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // How far each process's usage journal is booked (billing/usage-journal.ts): written in the
  // transaction that books its settlements, so replaying a crashed process's journal books exactly
  // what the store does not hold yet.
  await db.schema
    .createTable('usage_journal_marks')
    .addColumn('journal', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_journal_marks').execute();
}
