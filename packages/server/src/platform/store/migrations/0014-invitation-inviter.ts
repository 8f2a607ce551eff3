import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Who made an organization invitation: accepting it needs that person to still be an owner, so an
  // owner who is removed cannot come back (or send someone) through a link made before.
  // Invitations from before this column have no inviter and are no longer accepted (fail closed).
  await db.schema.alterTable('invitations').addColumn('invited_by', 'varchar(36)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invitations').dropColumn('invited_by').execute();
}
