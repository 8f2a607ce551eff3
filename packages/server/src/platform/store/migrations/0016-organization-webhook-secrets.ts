import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // An organization's own Standard Webhooks secret (sealed with SECRETS_KEY): its deployments'
  // callbacks are signed with it, not with the buying member's personal secret, so every owner can
  // verify and rotate it and it outlives any member (issue 28, finding 9). Organizations made
  // before this column get theirs on first use (services/accounts/organization-secret.ts): a
  // migration has no SECRETS_KEY to seal one with.
  await db.schema.alterTable('organizations').addColumn('webhook_secret_enc', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('webhook_secret_enc').execute();
}
