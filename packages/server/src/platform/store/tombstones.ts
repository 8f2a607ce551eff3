// Tombstones of deleted deployments (migration 0011), and the housekeeping deletes that keep the
// store from growing without bound (retention from the operator's configuration).
import type { Kysely } from 'kysely';
import type { Deployment } from '../../domain/deployment.js';
import type { Database } from './schema.js';
import { rowToDeployment } from './rows.js';
import { deleteBefore } from './matching.js';

export interface Tombstone {
  id: string;
  userId: string;
  workerName: string;
  subscriptionId: string;
  deletedAt: string;
}

export class TombstoneRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async bury(d: Deployment, at: string): Promise<void> {
    await this.db
      .insertInto('deployment_tombstones')
      .values({
        id: d.id,
        user_id: d.userId,
        worker_name: d.workerName,
        checkout_id: d.checkoutId,
        payment_subscription_id: d.paymentSubscriptionId,
        deleted_at: at,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  /** The tombstone a payment event is about, by deployment id or subscription id. */
  async find(e: { deploymentId?: string; subscriptionId?: string }): Promise<Tombstone | undefined> {
    if (!e.deploymentId && !e.subscriptionId) return undefined;
    const row = await this.db
      .selectFrom('deployment_tombstones')
      .selectAll()
      .where((eb) =>
        eb.or([
          ...(e.deploymentId ? [eb('id', '=', e.deploymentId)] : []),
          ...(e.subscriptionId ? [eb('payment_subscription_id', '=', e.subscriptionId)] : []),
        ]),
      )
      .executeTakeFirst();
    return row && toTombstone(row);
  }

  /** Tombstones buried before `before` whose cleanup jobs (subscription, checkout) are all finished. */
  async settledBefore(before: string): Promise<Tombstone[]> {
    const rows = await this.db
      .selectFrom('deployment_tombstones as t')
      .selectAll('t')
      .where('t.deleted_at', '<', before)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('jobs as j')
              .select('j.id')
              .whereRef('j.deployment_id', '=', 't.id')
              .where('j.status', '=', 'pending'),
          ),
        ),
      )
      .execute();
    return rows.map(toTombstone);
  }

  async purge(id: string): Promise<void> {
    await this.db.deleteFrom('deployment_tombstones').where('id', '=', id).execute();
  }

  /**
   * Moves slots still waiting for their first payment since before `createdBefore` (never
   * activated, no worker, no subscription) to tombstones, each in its own transaction.
   */
  async buryAbandoned(createdBefore: string, at: string): Promise<number> {
    const rows = await this.db
      .selectFrom('deployments')
      .selectAll()
      .where('payment_status', '=', 'pending')
      .where('status', '=', 'purchased')
      .where('created_at', '<', createdBefore)
      .limit(500)
      .execute();
    let buried = 0;
    for (const row of rows) {
      const d = rowToDeployment(row);
      const done = await this.db.transaction().execute(async (trx) => {
        // Guarded like a user's delete: a payment that landed meanwhile keeps the slot.
        const gone = await trx
          .deleteFrom('deployments')
          .where('id', '=', d.id)
          .where('generation', '=', d.generation)
          .where('payment_status', '=', 'pending')
          .executeTakeFirst();
        if (Number(gone.numDeletedRows) === 0) return false;
        await new TombstoneRepo(trx).bury(d, at);
        return true;
      });
      if (done) buried++;
    }
    return buried;
  }

  /** Finished jobs, payment-event ids, rate-limit windows and idempotency keys past retention. */
  async sweep(o: {
    jobsBefore: string;
    paymentEventsBefore: string;
    rateWindowsBefore: number;
    idempotencyKeysBefore: string;
    /** Browser sessions that expired before this. */
    sessionsBefore: string;
  }) {
    const jobs = await this.db
      .deleteFrom('jobs')
      .where('status', 'in', ['done', 'failed'])
      .where('updated_at', '<', o.jobsBefore)
      .executeTakeFirst();
    const paymentEvents = await deleteBefore(this.db, 'payment_events', 'received_at', o.paymentEventsBefore);
    const rateWindows = await deleteBefore(this.db, 'rate_limit_counters', 'window_start', o.rateWindowsBefore);
    const idempotencyKeys = await deleteBefore(this.db, 'idempotency_keys', 'created_at', o.idempotencyKeysBefore);
    const sessions = await deleteBefore(this.db, 'sessions', 'expires_at', o.sessionsBefore);
    return { sessions, idempotencyKeys, jobs: Number(jobs.numDeletedRows), paymentEvents, rateWindows };
  }
}

function toTombstone(r: {
  id: string;
  user_id: string;
  worker_name: string;
  payment_subscription_id: string;
  deleted_at: string;
}): Tombstone {
  return {
    id: r.id,
    userId: r.user_id,
    workerName: r.worker_name,
    subscriptionId: r.payment_subscription_id,
    deletedAt: r.deleted_at,
  };
}
