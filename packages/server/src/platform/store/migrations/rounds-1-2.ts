// The migrations of rounds 1 and 2, frozen: what every existing database already ran, kept in one
// module as they landed (each under the name its database recorded), so the history reads top to
// bottom. Never edit one: a change to the schema is a new migration file (see index.ts).
// Each statement is written out in full rather than built from a shared helper, so no later edit
// of a helper can change what a new database gets from its history (docs/decisions/0030-house.md).
import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';

export const roundsOneAndTwo: Record<string, Migration> = {
  '0001-initial': {
    async up(db: Kysely<any>): Promise<void> {
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
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('deployments').execute();
      await db.schema.dropTable('api_keys').execute();
      await db.schema.dropTable('users').execute();
    },
  },
  // Durable work: deploys, callback deliveries, subscription cleanup. A row is claimed by one
  // replica at a time through a lease (locked_until); a replica that dies loses its lease.
  '0002-jobs': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('kind', 'varchar(32)', (c) => c.notNull())
        .addColumn('deployment_id', 'varchar(36)')
        .addColumn('generation', 'integer')
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('run_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('locked_by', 'varchar(64)')
        .addColumn('locked_until', 'varchar(32)')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['status', 'run_at']).execute();
      await db.schema.createIndex('jobs_deployment_idx').on('jobs').columns(['deployment_id', 'kind']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('jobs').execute();
    },
  },
  '0003-payments': {
    async up(db: Kysely<any>): Promise<void> {
      // Each payment provider event is applied once.
      await db.schema
        .createTable('payment_events')
        .addColumn('id', 'varchar(255)', (c) => c.primaryKey())
        .addColumn('type', 'varchar(100)', (c) => c.notNull())
        .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      // Client Idempotency-Key on purchase, kept 24 h per user.
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('key', 'varchar(255)', (c) => c.notNull())
        .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('response', 'text')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'key'])
        .execute();
      // When the newest subscription event we applied happened (events arrive out of order).
      await db.schema.alterTable('deployments').addColumn('payment_event_at', 'integer').execute();
      await db.schema
        .createIndex('deployments_subscription_idx')
        .on('deployments')
        .column('payment_subscription_id')
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('deployments_subscription_idx').execute();
      await db.schema.alterTable('deployments').dropColumn('payment_event_at').execute();
      await db.schema.dropTable('idempotency_keys').execute();
      await db.schema.dropTable('payment_events').execute();
    },
  },
  // Provider ids are longer than their documentation's examples: a Stripe Checkout Session id is
  // 66 characters (cs_test_ + 58), so checkout_id (varchar(64)) refused every real purchase on
  // PostgreSQL. Every column that holds a provider id is now varchar(255), as Stripe advises.
  // SQLite ignores declared lengths, so there is nothing to change there.
  '0004-provider-ids': {
    async up(db: Kysely<any>): Promise<void> {
      if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
      await db.schema
        .alterTable('deployments')
        .alterColumn('checkout_id', (c) => c.setDataType('varchar(255)'))
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
      await db.schema
        .alterTable('deployments')
        .alterColumn('checkout_id', (c) => c.setDataType('varchar(64)'))
        .execute();
    },
  },
  '0005-leases': {
    async up(db: Kysely<any>): Promise<void> {
      // Named leases: which replica runs a singleton loop (the workers reconciler) until when.
      await db.schema
        .createTable('leases')
        .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('holder', 'varchar(64)', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('leases').execute();
    },
  },
  // Money is stored as whole nano-dollars (1e-9 USD) in bigint columns: exact sums on both
  // databases, and a catalog price of 0.15 USD per million tokens is 150 nano-dollars per token.
  '0006-usage': {
    async up(db: Kysely<any>): Promise<void> {
      // One row per deployment and billing period: the allowance and the single row every concurrent
      // reservation updates conditionally, so no two callers can spend the same credit.
      await db.schema
        .createTable('usage_periods')
        .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull().references('deployments.id').onDelete('cascade'))
        .addColumn('period_end', 'varchar(32)', (c) => c.notNull())
        .addColumn('allowance_nano', 'bigint')
        .addColumn('reserved_nano', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('used_nano', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('exhausted_notified', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('usage_periods_pk', ['deployment_id', 'period_end'])
        .execute();
      // The ledger: one row per metered reply, with the provider's own token counts.
      await db.schema
        .createTable('usage_records')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull().references('deployments.id').onDelete('cascade'))
        .addColumn('period_end', 'varchar(32)', (c) => c.notNull())
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('source', 'varchar(16)', (c) => c.notNull())
        .addColumn('model', 'varchar(255)', (c) => c.notNull())
        .addColumn('prompt_tokens', 'integer', (c) => c.notNull())
        .addColumn('completion_tokens', 'integer', (c) => c.notNull())
        .addColumn('cost_nano', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('usage_records_period_idx')
        .on('usage_records')
        .columns(['deployment_id', 'period_end', 'day'])
        .execute();
      // A spend cap the owner of a byok deployment sets for their own key.
      await db.schema
        .createTable('usage_limits')
        .addColumn('deployment_id', 'varchar(36)', (c) =>
          c.primaryKey().references('deployments.id').onDelete('cascade'),
        )
        .addColumn('monthly_cap_nano', 'bigint')
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('usage_limits').execute();
      await db.schema.dropTable('usage_records').execute();
      await db.schema.dropTable('usage_periods').execute();
    },
  },
  '0007-worker-placements': {
    async up(db: Kysely<any>): Promise<void> {
      // Which agent host (a StatefulSet ordinal) holds each assistant in the Kubernetes backend's
      // shared placement. Shared by every control-plane replica.
      await db.schema
        .createTable('worker_placements')
        .addColumn('worker_name', 'varchar(63)', (c) => c.primaryKey())
        .addColumn('host', 'integer', (c) => c.notNull())
        .addColumn('placed_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('worker_placements_host_idx').on('worker_placements').column('host').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('worker_placements').execute();
    },
  },
  '0008-limits': {
    async up(db: Kysely<any>): Promise<void> {
      // Per-API-key request counters of the rate limit: one row per key, reused window after window,
      // so every control-plane replica on one PostgreSQL counts against the same number.
      await db.schema
        .createTable('rate_limit_counters')
        .addColumn('key', 'varchar(128)', (c) => c.primaryKey())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('rate_limit_counters').execute();
    },
  },
  '0009-callback-sequences': {
    async up(db: Kysely<any>): Promise<void> {
      // The last callback sequence number of each deployment: every callback payload carries the next
      // one, so a receiver can always tell the newest state. Kept after a deployment is deleted, so a
      // late event never reuses a number.
      await db.schema
        .createTable('callback_sequences')
        .addColumn('deployment_id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('last', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('callback_sequences').execute();
    },
  },
  '0010-placement-choices': {
    async up(db: Kysely<any>): Promise<void> {
      // The operator's per-assistant choice of Kubernetes placement (shared or dedicated); an
      // assistant without a row follows KUBERNETES_PLACEMENT.
      await db.schema
        .createTable('placement_choices')
        .addColumn('worker_name', 'varchar(63)', (c) => c.primaryKey())
        .addColumn('placement', 'varchar(16)', (c) => c.notNull())
        .addColumn('chosen_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('placement_choices').execute();
    },
  },
  '0011-tombstones': {
    async up(db: Kysely<any>): Promise<void> {
      // What is left of a deleted deployment until its worker and subscription are cleaned up and the
      // retention has passed: enough for a late payment event to find it.
      await db.schema
        .createTable('deployment_tombstones')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('user_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('worker_name', 'varchar(63)', (c) => c.notNull())
        .addColumn('checkout_id', 'varchar(255)', (c) => c.notNull())
        .addColumn('payment_subscription_id', 'varchar(255)', (c) => c.notNull())
        .addColumn('deleted_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('deployment_tombstones_subscription_idx')
        .on('deployment_tombstones')
        .column('payment_subscription_id')
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('deployment_tombstones').execute();
    },
  },
  '0012-desired-observed': {
    async up(db: Kysely<any>): Promise<void> {
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
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('deployments_desired_idx').execute();
      await db.schema.alterTable('deployments').dropColumn('observed').execute();
      await db.schema.alterTable('deployments').dropColumn('desired').execute();
    },
  },
  '0013-accounts': {
    async up(db: Kysely<any>): Promise<void> {
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
        .addColumn('organization_id', 'varchar(36)', (c) =>
          c.notNull().references('organizations.id').onDelete('cascade'),
        )
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
    },
    async down(db: Kysely<any>): Promise<void> {
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
    },
  },
  '0014-invitation-inviter': {
    async up(db: Kysely<any>): Promise<void> {
      // Who made an organization invitation: accepting it needs that person to still be an owner, so an
      // owner who is removed cannot come back (or send someone) through a link made before.
      // Invitations from before this column have no inviter and are no longer accepted (fail closed).
      await db.schema.alterTable('invitations').addColumn('invited_by', 'varchar(36)').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('invitations').dropColumn('invited_by').execute();
    },
  },
  '0015-settings': {
    async up(db: Kysely<any>): Promise<void> {
      // Versions of an assistant's settings document (DESIGN §7.1), the last ten kept. Version 1 of a
      // deployment is the defaults and is not stored until the first change (services/settings/):
      // existing deployments need no backfill. The primary key is what keeps two concurrent PUTs
      // from writing the same version.
      await db.schema
        .createTable('assistant_settings')
        .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('document', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('assistant_settings_pk', ['deployment_id', 'version'])
        .execute();
      // One bot token runs one assistant: a keyed hash of the token (the token itself stays sealed)
      // under a unique index, so two concurrent activations with one token cannot both be written.
      // Deleted deployments leave the table, so their tokens are free again.
      await db.schema.alterTable('deployments').addColumn('bot_token_hash', 'varchar(64)').execute();
      await db.schema
        .createIndex('deployments_bot_token_hash_idx')
        .on('deployments')
        .column('bot_token_hash')
        .unique()
        .where(sql.ref('bot_token_hash'), 'is not', null)
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('deployments_bot_token_hash_idx').execute();
      await db.schema.alterTable('deployments').dropColumn('bot_token_hash').execute();
      await db.schema.dropTable('assistant_settings').execute();
    },
  },
  '0016-organization-webhook-secrets': {
    async up(db: Kysely<any>): Promise<void> {
      // An organization's own Standard Webhooks secret (sealed with SECRETS_KEY): its deployments'
      // callbacks are signed with it, not with the buying member's personal secret, so every owner can
      // verify and rotate it and it outlives any member (issue 28, finding 9). Organizations made
      // before this column get theirs on first use (accounts/organization-secret.ts): a
      // migration has no SECRETS_KEY to seal one with.
      await db.schema.alterTable('organizations').addColumn('webhook_secret_enc', 'text').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('organizations').dropColumn('webhook_secret_enc').execute();
    },
  },
  '0017-operations': {
    async up(db: Kysely<any>): Promise<void> {
      // One row per alert cause (ops/alerts.ts): when it was last sent. Every replica claims a cause
      // through this row, so an alert goes out once per cause and window however many replicas see it.
      await db.schema
        .createTable('alert_causes')
        .addColumn('cause', 'varchar(200)', (c) => c.primaryKey())
        .addColumn('last_sent_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      // The operator's suspension (admin deployments suspend): while set, the deployment's desire is
      // `stopped` whatever its owner asks, and only `admin deployments resume` clears it.
      await db.schema.alterTable('deployments').addColumn('suspended_reason', 'varchar(500)').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('deployments').dropColumn('suspended_reason').execute();
      await db.schema.dropTable('alert_causes').execute();
    },
  },
  '0018-reconcile-pages': {
    async up(db: Kysely<any>): Promise<void> {
      // The reconciler reads the deployments that want a worker a page at a time in id order, and
      // between full reads only those written since its watermark (reconciler/desired-index.ts): both
      // reads walk an index in their own order and stop after a page.
      await db.schema.createIndex('deployments_desired_id_idx').on('deployments').columns(['desired', 'id']).execute();
      await db.schema.createIndex('deployments_updated_idx').on('deployments').columns(['updated_at', 'id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('deployments_updated_idx').execute();
      await db.schema.dropIndex('deployments_desired_id_idx').execute();
    },
  },
  '0022-password-resets': {
    async up(db: Kysely<any>): Promise<void> {
      // One-time links that set a new password (`admin reset-link`, "Forgot password"): only the
      // token's SHA-256 is kept; a link is used once and expires after an hour.
      await db.schema
        .createTable('password_resets')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('used_at', 'varchar(32)')
        .execute();
      await db.schema.createIndex('password_resets_user_idx').on('password_resets').column('user_id').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('password_resets').execute();
    },
  },
  '0027-usage-journal-marks': {
    async up(db: Kysely<any>): Promise<void> {
      // How far each process's usage journal is booked (billing/usage-journal.ts): written in the
      // transaction that books its settlements, so replaying a crashed process's journal books exactly
      // what the store does not hold yet.
      await db.schema
        .createTable('usage_journal_marks')
        .addColumn('journal', 'varchar(100)', (c) => c.primaryKey())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('usage_journal_marks').execute();
    },
  },
};
