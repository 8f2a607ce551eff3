import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Deployment } from '../domain/deployment.js';
import { rowToDeployment, deploymentToColumns } from './rows.js';

export type DeploymentPatch = Partial<Omit<Deployment, 'id' | 'userId' | 'createdAt' | 'generation'>>;

export class DeploymentRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(d: Deployment): Promise<void> {
    await this.db
      .insertInto('deployments')
      .values(deploymentToColumns(d) as never)
      .execute();
  }

  async findOwned(id: string, userId: string): Promise<Deployment | undefined> {
    const row = await this.db
      .selectFrom('deployments')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row && rowToDeployment(row);
  }

  async findById(id: string): Promise<Deployment | undefined> {
    const row = await this.db.selectFrom('deployments').selectAll().where('id', '=', id).executeTakeFirst();
    return row && rowToDeployment(row);
  }

  async findByCheckoutId(checkoutId: string): Promise<Deployment | undefined> {
    const row = await this.db
      .selectFrom('deployments')
      .selectAll()
      .where('checkout_id', '=', checkoutId)
      .executeTakeFirst();
    return row && rowToDeployment(row);
  }

  async findBySubscription(subscriptionId: string): Promise<Deployment | undefined> {
    if (!subscriptionId) return undefined;
    const row = await this.db
      .selectFrom('deployments')
      .selectAll()
      .where('payment_subscription_id', '=', subscriptionId)
      .executeTakeFirst();
    return row && rowToDeployment(row);
  }

  async listByStatus(statuses: string[]): Promise<Deployment[]> {
    const rows = await this.db.selectFrom('deployments').selectAll().where('status', 'in', statuses).execute();
    return rows.map(rowToDeployment);
  }

  /** The user's deployments, newest first, without pending-payment slots older than `pendingCutoff`. */
  async listVisible(userId: string, pendingCutoff: string): Promise<Deployment[]> {
    const rows = await this.db
      .selectFrom('deployments')
      .selectAll()
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('payment_status', '!=', 'pending'), eb('created_at', '>=', pendingCutoff)]))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(rowToDeployment);
  }

  /**
   * Applies a patch only if the row still has the generation the caller read, and bumps the
   * generation when asked. Returns the fresh row, or undefined when someone else got there first.
   */
  async update(
    id: string,
    expectedGeneration: number,
    patch: DeploymentPatch,
    opts: { bumpGeneration?: boolean } = {},
  ): Promise<Deployment | undefined> {
    const set: Record<string, unknown> = deploymentToColumns(patch);
    if (opts.bumpGeneration) set.generation = expectedGeneration + 1;
    const res = await this.db
      .updateTable('deployments')
      .set(set as never)
      .where('id', '=', id)
      .where('generation', '=', expectedGeneration)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return undefined;
    return this.findById(id);
  }

  async delete(id: string, expectedGeneration: number): Promise<boolean> {
    const res = await this.db
      .deleteFrom('deployments')
      .where('id', '=', id)
      .where('generation', '=', expectedGeneration)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
