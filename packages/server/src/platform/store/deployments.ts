import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Deployment, DeploymentStatus } from '../../domain/deployment.js';
import { rowToDeployment, deploymentToColumns } from './rows.js';
import { slices } from './deployment-rows.js';
import { deleteMatching } from './matching.js';
import type { ExpressionBuilder } from 'kysely';
import { type Markers, prepareQuery } from './prepared.js';

/** Whose deployments: a user's personal ones, or an organization's (services.ts). */
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

/** What a reconcile pass needs of a deployment to decide whether to look closer (desired-index.ts). */
export interface DesiredRow {
  id: string;
  workerName: string;
  status: string;
  desired: string;
  generation: number;
  updatedAt: string;
}

type NarrowRow = {
  id: string;
  worker_name: string;
  status: string;
  desired: string;
  generation: number | string;
  updated_at: string;
};

function toDesiredRow(r: NarrowRow): DesiredRow {
  return {
    id: r.id,
    workerName: r.worker_name,
    status: r.status,
    desired: r.desired,
    generation: Number(r.generation),
    updatedAt: r.updated_at,
  };
}

const NARROW = ['id', 'worker_name', 'status', 'desired', 'generation', 'updated_at'] as const;

/**
 * A row of the deployments that want a worker (the restoring pass's and the full read's pages):
 * narrower still, since every such row is desired running and is not paged by time. At 100,000
 * rows each column left out is 100,000 strings fewer for the collector (decision 0027, round 14).
 */
export type WantingRow = Pick<DesiredRow, 'id' | 'workerName' | 'status' | 'generation'>;

const WANTING = ['id', 'worker_name', 'status', 'generation'] as const;

function toWantingRow(r: Pick<NarrowRow, (typeof WANTING)[number]>): WantingRow {
  return { id: r.id, workerName: r.worker_name, status: r.status, generation: Number(r.generation) };
}

/**
 * The list's three reads for one kind of owner (position 0: the owner, 1: the pending cutoff, 2: the
 * limit, 3 and 4: the cursor). Keyset paging on the list's own total order: rows inserted
 * meanwhile sort before the cursor (they are newer), so later pages neither repeat nor skip a row.
 */
function visibleQueries(db: Kysely<Database>, owner: (m: Markers) => Owner) {
  const base = (m: Markers) =>
    db
      .selectFrom('deployments')
      .selectAll()
      .where((eb) => ownedBy(eb, owner(m)))
      .where((eb) => eb.or([eb('payment_status', '!=', 'pending'), eb('created_at', '>=', m.text(1))]))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc');
  return {
    all: prepareQuery(db, base),
    first: prepareQuery(db, (m) => base(m).limit(m.int(2))),
    after: prepareQuery(db, (m) =>
      base(m)
        .where((eb) =>
          eb.or([
            eb('created_at', '<', m.text(3)),
            eb.and([eb('created_at', '=', m.text(3)), eb('id', '<', m.text(4))]),
          ]),
        )
        .limit(m.int(2)),
    ),
  };
}

export type DeploymentPatch = Partial<Omit<Deployment, 'id' | 'userId' | 'createdAt' | 'generation'>>;

export class DeploymentRepo {
  // The read of every GET and of each chat whose target is not cached, compiled once: `ownedBy`
  // for a personal owner (id, user) and for an organization (id, organization).
  private readonly ownedPersonal;
  private readonly ownedByOrganization;
  private readonly wantingPage;
  private readonly wantingCount;
  private readonly changedPage;
  /** The list's reads (every owner kind; the whole list, a first page, a page after a cursor), compiled once like the GET's. */
  private readonly visible;

  constructor(private readonly db: Kysely<Database>) {
    const byId = (m: Markers) => db.selectFrom('deployments').selectAll().where('id', '=', m.text(0));
    this.ownedPersonal = prepareQuery(db, (m) =>
      byId(m).where((eb) => ownedBy(eb, { userId: m.text(1), organizationId: null })),
    );
    this.ownedByOrganization = prepareQuery(db, (m) =>
      byId(m).where((eb) => ownedBy(eb, { userId: '', organizationId: m.text(1) })),
    );
    this.visible = {
      personal: visibleQueries(db, (m) => ({ userId: m.text(0), organizationId: null })),
      organization: visibleQueries(db, (m) => ({ userId: '', organizationId: m.text(0) })),
    };
    this.wantingPage = prepareQuery(db, (m) =>
      db
        .selectFrom('deployments')
        .select(WANTING)
        .where('desired', '=', 'running')
        .where('id', '>', m.text(0))
        .orderBy('id')
        .limit(m.int(1)),
    );
    this.wantingCount = prepareQuery(db, () =>
      db
        .selectFrom('deployments')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('desired', '=', 'running'),
    );
    this.changedPage = prepareQuery(db, (m) =>
      db
        .selectFrom('deployments')
        .select(NARROW)
        // A row value, so the index range starts at the cursor: written as `updated_at > ? OR
        // (updated_at = ? AND id > ?)`, SQLite walked every row of the cursor's updated_at from
        // the first at each page (rows written together share it: ~60 ms a page at 100,000).
        .where((eb) => eb(eb.refTuple('updated_at', 'id'), '>', eb.tuple(m.text(0), m.text(1))))
        .orderBy('updated_at')
        .orderBy('id')
        .limit(m.int(2)),
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
    return this.findOneBy('id', id);
  }

  /** The deployment whose unique column holds `value`. */
  private async findOneBy(
    column: 'id' | 'bot_token_hash' | 'checkout_id' | 'payment_subscription_id',
    value: string,
  ): Promise<Deployment | undefined> {
    const row = await this.db.selectFrom('deployments').selectAll().where(column, '=', value).executeTakeFirst();
    return row && rowToDeployment(row);
  }

  /** The deployment holding a bot token, by the token's keyed hash (unique: migration 0015). */
  async findByBotTokenHash(hash: string): Promise<Deployment | undefined> {
    return this.findOneBy('bot_token_hash', hash);
  }

  /** Rows sealed before the hash existed: filled in at start-up (settings/bot-token-owner.ts). */
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
    return this.findOneBy('checkout_id', checkoutId);
  }

  async findBySubscription(subscriptionId: string): Promise<Deployment | undefined> {
    if (!subscriptionId) return undefined;
    return this.findOneBy('payment_subscription_id', subscriptionId);
  }

  /** Every deployment whose desired state is a running worker (deploying or active). */
  async listWantingWorkers(): Promise<Deployment[]> {
    const rows = await this.db.selectFrom('deployments').selectAll().where('desired', '=', 'running').execute();
    return rows.map(rowToDeployment);
  }

  /** Of these ids, the ones whose deployment wants a worker (narrow: id only, one query per 500). */
  async wantingAmong(ids: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const slice of slices(ids)) {
      const rows = await this.db
        .selectFrom('deployments')
        .select('id')
        .where('id', 'in', slice)
        .where('desired', '=', 'running')
        .execute();
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  /** A page of the deployments that want a worker: at most `limit`, in id order after `afterId`, narrow columns. */
  async pageWantingWorkers(afterId: string, limit: number): Promise<WantingRow[]> {
    return (await this.wantingPage(afterId, limit)).rows.map(toWantingRow);
  }

  /**
   * Every column of the named deployments that still want a worker, in id order (a restoring pass
   * builds worker specs from them): by id, so a row written meanwhile cannot push one out of a page.
   */
  async wantingWorkersByIds(ids: readonly string[]): Promise<Deployment[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('deployments')
      .selectAll()
      .where('desired', '=', 'running')
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();
    return rows.map(rowToDeployment);
  }

  async countWantingWorkers(): Promise<number> {
    return Number((await this.wantingCount()).rows[0]?.n ?? 0);
  }

  /**
   * A page of the deployments written after the cursor (any desired state), in (updated_at, id)
   * order: the cursor ({ updatedAt: since, id: '' } at first) is the last row of the page before.
   */
  async pageChangedSince(after: { updatedAt: string; id: string }, limit: number): Promise<DesiredRow[]> {
    return (await this.changedPage(after.updatedAt, after.id, limit)).rows.map(toDesiredRow);
  }

  /** How many deployments are in each status (the operator's metrics). */
  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('deployments')
      .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  /** The active deployments among these worker names (the health watch's troubled workers; 500 a query). */
  async activeByWorkerNames(names: readonly string[]): Promise<Deployment[]> {
    const out: Deployment[] = [];
    for (const slice of slices(names)) {
      const rows = await this.db
        .selectFrom('deployments')
        .selectAll()
        .where('worker_name', 'in', slice)
        .where('status', '=', 'active')
        .execute();
      for (const r of rows) out.push(rowToDeployment(r));
    }
    return out;
  }

  /** Active deployments with a statusMessage: what a health watch showed before this process began. */
  async activeWithMessage(): Promise<Deployment[]> {
    const rows = await this.db
      .selectFrom('deployments')
      .selectAll()
      .where('status', '=', 'active')
      .where('status_message', 'is not', null)
      .execute();
    return rows.map(rowToDeployment);
  }

  async listByStatus(statuses: string[]): Promise<Deployment[]> {
    const rows = await this.db.selectFrom('deployments').selectAll().where('status', 'in', statuses).execute();
    return rows.map(rowToDeployment);
  }

  /** The owner's deployments, newest first, without pending-payment slots older than `pendingCutoff`. */
  async listVisible(owner: Owner, pendingCutoff: string, page?: ListPage): Promise<Deployment[]> {
    const q = this.visible[owner.organizationId ? 'organization' : 'personal'];
    const ownerId = owner.organizationId ?? owner.userId;
    const after = page?.after;
    const { rows } = !page
      ? await q.all(ownerId, pendingCutoff)
      : after
        ? await q.after(ownerId, pendingCutoff, page.limit, after.createdAt, after.id)
        : await q.first(ownerId, pendingCutoff, page.limit);
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
    opts: { bumpGeneration?: boolean; whileStatus?: DeploymentStatus } = {},
  ): Promise<Deployment | undefined> {
    const set: Record<string, unknown> = deploymentToColumns(patch);
    if (opts.bumpGeneration) set.generation = expectedGeneration + 1;
    let q = this.db
      .updateTable('deployments')
      .set(set as never)
      .where('id', '=', id)
      .where('generation', '=', expectedGeneration);
    if (opts.whileStatus) q = q.where('status', '=', opts.whileStatus);
    const res = await q.executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return undefined;
    return this.findById(id);
  }

  async delete(id: string, expectedGeneration: number): Promise<boolean> {
    return deleteMatching(this.db, 'deployments', { id, generation: expectedGeneration });
  }

  /**
   * The slots one person holds (MAX_SLOTS_PER_USER, issue 28 finding 3): every slot they bought,
   * personal or for an organization, and every slot of the organizations they own, whoever bought
   * it; pending-payment slots older than `pendingCutoff` no longer count. A person's organizations
   * do not each get a cap of their own.
   */
  async countHeldByPerson(userId: string, pendingCutoff: string, db: Kysely<Database> = this.db): Promise<number> {
    const row = await db
      .selectFrom('deployments')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where((eb) =>
        eb.or([
          eb('user_id', '=', userId),
          eb(
            'organization_id',
            'in',
            eb
              .selectFrom('memberships')
              .select('organization_id')
              .where('user_id', '=', userId)
              .where('role', '=', 'owner'),
          ),
        ]),
      )
      .where((eb) => eb.or([eb('payment_status', '!=', 'pending'), eb('created_at', '>=', pendingCutoff)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Inserts the slot only while its buyer holds fewer than `max` (countHeldByPerson). The buyer's
   * user row is locked first (a no-op UPDATE: a row lock on PostgreSQL, the write lock on SQLite),
   * so concurrent purchases of one person count one after another and can never pass the cap together.
   */
  async insertCapped(d: Deployment, max: number, pendingCutoff: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      await tx.updateTable('users').set({ id: d.userId }).where('id', '=', d.userId).execute();
      if ((await this.countHeldByPerson(d.userId, pendingCutoff, tx)) >= max) return false;
      await this.insert(d, tx);
      return true;
    });
  }
}
