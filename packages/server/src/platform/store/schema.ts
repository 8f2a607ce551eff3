// Row types of the store. Timestamps are ISO 8601 UTC strings and booleans are 0/1 integers on
// both SQLite and PostgreSQL, so one query layer and one mapper serve both (docs/decisions/0002).
import type { ColumnType, Generated } from 'kysely';

export interface UsersTable {
  id: string;
  email: string;
  webhook_secret_enc: string;
  created_at: string;
  /** argon2id; null for users created by `admin create-key` (they have keys, not a password). */
  password_hash: string | null;
}

export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: string;
  /** The organization's callback secret, sealed; null until first use for organizations older than migration 0016. */
  webhook_secret_enc: string | null;
}

export interface MembershipsTable {
  organization_id: string;
  user_id: string;
  role: string;
  joined_at: string;
}

export interface InvitationsTable {
  id: string;
  token_hash: string;
  email: string;
  organization_id: string | null;
  role: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  invited_by: string | null;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  prefix: string;
  hash: string;
  created_at: string;
  revoked_at: string | null;
  organization_id: string | null;
  name: Generated<string>;
  last_used_at: string | null;
}

export interface DeploymentsTable {
  id: string;
  /** The operator's suspension reason (0017); null when not suspended. */
  suspended_reason: Generated<string | null>;
  user_id: string;
  organization_id: string | null;
  name: string;
  model_provider: string;
  model_id: string;
  channel_type: string;
  api_mode: string;
  framework: string;
  worker_name: string;
  worker_url: string | null;
  status: string;
  status_message: string | null;
  desired: string;
  observed: string;
  payment_status: string;
  payment_subscription_id: string;
  current_period_end: string;
  canceled_at: string | null;
  is_prebuy: number;
  user_callback_url: string | null;
  bot_token_enc: string | null;
  /** Keyed hash of the bot token (crypto/secret-box.ts), unique among deployments. */
  bot_token_hash: string | null;
  model_api_key_enc: string | null;
  gateway_token_enc: string | null;
  checkout_id: string;
  generation: Generated<number>;
  payment_event_at: number | null;
  created_at: string;
  updated_at: string;
}

export interface PaymentEventsTable {
  id: string;
  type: string;
  received_at: string;
}

export interface IdempotencyKeysTable {
  user_id: string;
  key: string;
  request_hash: string;
  response: string | null;
  created_at: string;
}

export interface JobsTable {
  id: string;
  kind: string;
  deployment_id: string | null;
  generation: number | null;
  payload: string;
  status: string;
  attempts: Generated<number>;
  run_at: string;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface UsagePeriodsTable {
  deployment_id: string;
  period_end: string;
  /** null: no allowance (a byok deployment without a cap). */
  allowance_nano: number | string | null;
  reserved_nano: Generated<number | string>;
  used_nano: Generated<number | string>;
  exhausted_notified: Generated<number>;
}

/** How far a process's usage journal is booked (migration 0027). */
export interface UsageJournalMarksTable {
  journal: string;
  seq: number | string;
}

export interface UsageRecordsTable {
  id: string;
  deployment_id: string;
  period_end: string;
  day: string;
  source: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost_nano: number | string;
  created_at: string;
  /** Who the call answered ("tg:42", "api:alice"); null when unknown (migration 0030). */
  end_user: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface UsageLimitsTable {
  deployment_id: string;
  monthly_cap_nano: number | string | null;
  updated_at: string;
}

/** A stored Responses API answer (migration 0030). */
export interface StoredResponsesTable {
  deployment_id: string;
  id: string;
  created_at: string;
  body: string;
}

export interface WorkerPlacementsTable {
  worker_name: string;
  host: number;
  placed_at: string;
}

export interface RateLimitCountersTable {
  key: string;
  /** Start of the counted window, Unix milliseconds. */
  window_start: number | string;
  count: number;
}

export interface PlacementChoicesTable {
  worker_name: string;
  placement: string;
  chosen_at: string;
}

export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: number | string;
}

export interface CallbackSequencesTable {
  deployment_id: string;
  last: number | string;
}

export interface DeploymentTombstonesTable {
  id: string;
  user_id: string;
  worker_name: string;
  checkout_id: string;
  payment_subscription_id: string;
  deleted_at: string;
}

export interface PasswordResetsTable {
  id: string;
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface AlertCausesTable {
  cause: string;
  last_sent_at: string;
}

export interface AssistantSettingsTable {
  deployment_id: string;
  version: number;
  /** The AssistantSettings document as JSON. */
  document: string;
  created_at: string;
}

/** An assistant's MCP servers (DESIGN §9.2). */
export interface McpServersTable {
  deployment_id: string;
  name: string;
  url: string;
  /** The headers as a JSON object, sealed (SecretBox); null without headers. */
  headers_enc: string | null;
  /** JSON array of the enabled tools' names; null: every tool the server lists. */
  enabled_tools: string | null;
  created_at: string;
  updated_at: string;
}

/** A channel beside the assistant's Telegram bot (DESIGN §9.1): WhatsApp today. */
export interface AssistantChannelsTable {
  id: string;
  deployment_id: string;
  type: string;
  /** The platform account it answers as (WhatsApp: the phone number id); unique per type. */
  account_id: string;
  /** What the owner may see, as JSON (phoneNumberId). */
  details: string;
  /** The credentials and the verify token, as JSON sealed with SECRETS_KEY. */
  secrets_enc: string;
  status: string;
  status_message: string | null;
  created_at: string;
  updated_at: string;
}

/** A webhook update accepted by the ingress, until (and after) its worker took it. */
export interface ChannelUpdatesTable {
  id: string;
  channel_id: string;
  deployment_id: string;
  type: string;
  /** The platform's id of the update (Telegram update_id, WhatsApp message id): repeats are answered once. */
  update_key: string;
  body: string;
  received_at: string;
  delivered_at: string | null;
}

export interface Database {
  mcp_servers: McpServersTable;
  assistant_channels: AssistantChannelsTable;
  channel_updates: ChannelUpdatesTable;
  assistant_settings: AssistantSettingsTable;
  password_resets: PasswordResetsTable;
  alert_causes: AlertCausesTable;
  deployment_tombstones: DeploymentTombstonesTable;
  callback_sequences: CallbackSequencesTable;
  leases: LeasesTable;
  placement_choices: PlacementChoicesTable;
  usage_periods: UsagePeriodsTable;
  usage_records: UsageRecordsTable;
  usage_journal_marks: UsageJournalMarksTable;
  usage_limits: UsageLimitsTable;
  stored_responses: StoredResponsesTable;
  jobs: JobsTable;
  payment_events: PaymentEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  users: UsersTable;
  sessions: SessionsTable;
  organizations: OrganizationsTable;
  memberships: MembershipsTable;
  invitations: InvitationsTable;
  api_keys: ApiKeysTable;
  deployments: DeploymentsTable;
  worker_placements: WorkerPlacementsTable;
  rate_limit_counters: RateLimitCountersTable;
}
