// What the operator sees across tenants (admin deployments list, admin usage, admin users list).
// Never served over HTTP: only the operator's CLI reads these.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { sealedSecrets } from './sealed-secrets.js';

export interface OperatorDeploymentRow {
  id: string;
  ownerEmail: string;
  organizationId: string | null;
  name: string;
  apiMode: string;
  status: string;
  statusMessage: string | null;
  suspendedReason: string | null;
  createdAt: string;
}

async function listAllDeployments(db: Kysely<Database>, status?: string): Promise<OperatorDeploymentRow[]> {
  let q = db
    .selectFrom('deployments')
    .innerJoin('users', 'users.id', 'deployments.user_id')
    .select([
      'deployments.id as id',
      'users.email as ownerEmail',
      'deployments.organization_id as organizationId',
      'deployments.name as name',
      'deployments.api_mode as apiMode',
      'deployments.status as status',
      'deployments.status_message as statusMessage',
      'deployments.suspended_reason as suspendedReason',
      'deployments.created_at as createdAt',
    ])
    .orderBy('deployments.created_at')
    .orderBy('deployments.id');
  if (status) q = q.where('deployments.status', '=', status);
  return (await q.execute()).map((r) => ({ ...r, suspendedReason: r.suspendedReason ?? null }));
}

export interface UsageRow {
  deploymentId: string;
  ownerEmail: string;
  apiMode: string;
  replies: number;
  promptTokens: number;
  completionTokens: number;
  costNano: number;
}

/** Usage booked on days `from` ≤ day < `to` (YYYY-MM-DD), per deployment with its owner. */
async function usageBetween(db: Kysely<Database>, from: string, to: string): Promise<UsageRow[]> {
  const rows = await db
    .selectFrom('usage_records')
    .innerJoin('deployments', 'deployments.id', 'usage_records.deployment_id')
    .innerJoin('users', 'users.id', 'deployments.user_id')
    .where('usage_records.day', '>=', from)
    .where('usage_records.day', '<', to)
    .groupBy(['usage_records.deployment_id', 'users.email', 'deployments.api_mode'])
    .select((eb) => [
      'usage_records.deployment_id as deploymentId',
      'users.email as ownerEmail',
      'deployments.api_mode as apiMode',
      eb.fn.countAll<number | string>().as('replies'),
      eb.fn.sum<number | string>('usage_records.prompt_tokens').as('promptTokens'),
      eb.fn.sum<number | string>('usage_records.completion_tokens').as('completionTokens'),
      eb.fn.sum<number | string>('usage_records.cost_nano').as('costNano'),
    ])
    .orderBy('usage_records.deployment_id')
    .execute();
  return rows.map((r) => ({
    deploymentId: r.deploymentId,
    ownerEmail: r.ownerEmail,
    apiMode: r.apiMode,
    replies: Number(r.replies),
    promptTokens: Number(r.promptTokens ?? 0),
    completionTokens: Number(r.completionTokens ?? 0),
    costNano: Number(r.costNano ?? 0),
  }));
}

async function listUsersWithCounts(db: Kysely<Database>) {
  const rows = await db
    .selectFrom('users')
    .leftJoin('deployments', 'deployments.user_id', 'users.id')
    .groupBy(['users.id', 'users.email', 'users.created_at'])
    .select((eb) => [
      'users.id as id',
      'users.email as email',
      'users.created_at as createdAt',
      eb.fn.count<number | string>('deployments.id').as('deployments'),
    ])
    .orderBy('users.created_at')
    .execute();
  return rows.map((r) => ({ ...r, deployments: Number(r.deployments) }));
}

/** The operator's reads across tenants, over the store's pool. */
export class OperatorViewRepo {
  constructor(private readonly db: Kysely<Database>) {}

  deployments(status?: string): Promise<OperatorDeploymentRow[]> {
    return listAllDeployments(this.db, status);
  }

  usageBetween(from: string, to: string): Promise<UsageRow[]> {
    return usageBetween(this.db, from, to);
  }

  usersWithCounts() {
    return listUsersWithCounts(this.db);
  }

  /** Every secret sealed at rest (admin restore proves its key opens them). */
  sealedSecrets(): Promise<string[]> {
    return sealedSecrets(this.db);
  }
}
