import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Deployment } from '../domain/deployment.js';
import { rowToDeployment, deploymentToColumns } from './rows.js';
import type { ExpressionBuilder } from 'kysely';
import { type Markers, prepareQuery } from './prepared.js';

/** Whose deployments: a user's personal ones, or an organization's (services/context.ts). */
export interface Owner {
  userId: string;
  organizationId: string | null;
}

/** The one ownership filter: every read that a caller scopes goes through it. */
function ownedBy(eb: ExpressionBuilder<Database, 'deployments'>, o: Owner) {
  return o.organizationId
    ? eb('organization_id', '=', o.organizationId)
    : eb.and([eb('user_id', '=', o.userId), eb('organization_id', 'is', null)]);
}

/** A page of the list: at most `limit` rows after the row `after` in list order. */
export interface ListPage {
  limit: number;
  after?: { createdAt: string; id: string };
}

export type DeploymentPatch = Partial<Omit<Deployment, 'id' | 'userId' | 'createdAt' | 'generation'>>;

export class DeploymentRepo {
  // The read of every GET and of each chat whose target is not cached, compiled once: `ownedBy`
  // for a personal owner (id, user) and for an organization (id, organization).
  private readonly ownedPersonal;
  private readonly ownedByOrganization;

  constructor(private readonly db: Kysely<Database>) {
    const byId = (m: Markers) => db.selectFrom('deployments').selectAll().where('id', '=', m.text(0));
    this.ownedPersonal = prepareQuery(db, (m) =>
      byId(m).where((eb) => ownedBy(eb, { userId: m.text(1), organizationId: null })),
    );
    this.ownedByOrganization = prepareQuery(db, (m) =>
      byId(m).where((eb) => ownedBy(eb, { userId: '', organizationId: m.text(1) })),
    );
  }

  async insert(d: Deployment, db: Kysely<Database> = this.db): Promise<void> {
    await db
      .insertInto('deployments')
      .values(deploymentToColumns(d) as never)
      .execute();
  }

  async findOwned(id: string, owner: Owner): Promise<Deployment | undefined> {
    const { rows } = owner.organizationId
      ? await this.ownedByOrganization(id, owner.organizationId)
      : await this.ownedPersonal(id, owner.userId);
    const row = rows[0];
    return row && rowToDeployment(row);
  }

  async findById(id: string): Promise<Deployment | undefined> {
    const row = await this.db.selectFrom('deployments').selectAll().where('id', '=', id).executeTakeFirst();
    return row && rowToDeployment(row);
  }

  /** The deployment holding a bot token, by the token's keyed hash (unique: migration 0015). */
  async findByBotTokenHash(hash: string): Promise<Deployment | undefined> {
    const row = await this.db
      .selectFrom('deployments')
      .selectAll()
      .where('bot_token_hash', '=', hash)
      .executeTakeFirst();
    return row && rowToDeployment(row);
  }

  /** Rows sealed before the hash existed: filled in at start-up (services/settings/bot-token-owner.ts). */
  async listMissingBotTokenHash(): Promise<Array<{ id: string; botTokenEnc: string }>> {
    const rows = await this.db
      .selectFrom('deployments')
      .select(['id', 'bot_token_enc'])
      .where('bot_token_enc', 'is not', null)
      .where('bot_token_hash', 'is', null)
      .execute();
    return rows.map((r) => ({ id: r.id, botTokenEnc: r.bot_token_enc! }));
  }

  async setBotTokenHash(id: string, hash: string): Promise<void> {
    await this.db.updateTable('deployments').set({ bot_token_hash: hash }).where('id', '=', id).execute();
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

  /** Every deployment whose desired state is a running worker (deploying or active). */
  async listWantingWorkers(): Promise<Deployment[]> {
    const rows = await this.db.selectFrom('deployments').selectAll().where('desired', '=', 'running').execute();
    return rows.map(rowToDeployment);
  }

  async listByStatus(statuses: string[]): Promise<Deployment[]> {
    const rows = await this.db.selectFrom('deployments').selectAll().where('status', 'in', statuses).execute();
    return rows.map(rowToDeployment);
  }

  /** The owner's deployments, newest first, without pending-payment slots older than `pendingCutoff`. */
  async listVisible(owner: Owner, pendingCutoff: string, page?: ListPage): Promise<Deployment[]> {
    let q = this.db
      .selectFrom('deployments')
      .selectAll()
      .where((eb) => ownedBy(eb, owner))
      .where((eb) => eb.or([eb('payment_status', '!=', 'pending'), eb('created_at', '>=', pendingCutoff)]));
    // Keyset paging on the list's own total order: rows inserted meanwhile sort before the cursor
    // (they are newer), so later pages neither repeat nor skip a row.
    const after = page?.after;
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '<', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
        ]),
      );
    q = q.orderBy('created_at', 'desc').orderBy('id', 'desc');
    if (page) q = q.limit(page.limit);
    return (await q.execute()).map(rowToDeployment);
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

  /** Slots the owner holds: every deployment except pending-payment ones older than `pendingCutoff`. */
  async countHeld(owner: Owner, pendingCutoff: string, db: Kysely<Database> = this.db): Promise<number> {
    const row = await db
      .selectFrom('deployments')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where((eb) => ownedBy(eb, owner))
      .where((eb) => eb.or([eb('payment_status', '!=', 'pending'), eb('created_at', '>=', pendingCutoff)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Inserts the slot only while its owner holds fewer than `max`. The owner's row (user or
   * organization) is locked first (a no-op UPDATE: a row lock on PostgreSQL, the write lock on
   * SQLite), so concurrent purchases of one owner count one after another and can never pass the cap together.
   */
  async insertCapped(d: Deployment, max: number, pendingCutoff: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const org = d.organizationId;
      if (org) await tx.updateTable('organizations').set({ id: org }).where('id', '=', org).execute();
      else await tx.updateTable('users').set({ id: d.userId }).where('id', '=', d.userId).execute();
      if ((await this.countHeld(d, pendingCutoff, tx)) >= max) return false;
      await this.insert(d, tx);
      return true;
    });
  }
}
