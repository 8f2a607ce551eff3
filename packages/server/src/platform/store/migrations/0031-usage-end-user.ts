// The owner's usage by end user (DESIGN §9.3): each metered model call records who it answered
// ("tg:42", "api:alice"), null where the caller named nobody and for rows booked before this column.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_records').addColumn('end_user', 'varchar(255)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_records').dropColumn('end_user').execute();
}
