// Organizations and their members. A member is an owner (invites, removes, revokes any key of the
// organization) or a member.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export type Role = 'owner' | 'member';

export interface Organization {
  id: string;
  name: string;
  createdAt: string;
}

export interface Member {
  userId: string;
  email: string;
  role: Role;
  joinedAt: string;
}

const asRole = (r: string): Role => (r === 'owner' ? 'owner' : 'member');

export class OrganizationRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The organization and its first owner, in one transaction; false (nothing made) when the owner
   * already belongs to `max` organizations. The owner's user row is locked first so concurrent
   * creations by one person count one after another.
   */
  async create(
    org: Organization & { webhookSecretEnc: string },
    ownerId: string,
    max = Number.POSITIVE_INFINITY,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      await tx.updateTable('users').set({ id: ownerId }).where('id', '=', ownerId).execute();
      const row = await tx
        .selectFrom('memberships')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('user_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      if (Number(row.n) >= max) return false;
      await tx
        .insertInto('organizations')
        .values({ id: org.id, name: org.name, created_at: org.createdAt, webhook_secret_enc: org.webhookSecretEnc })
        .execute();
      await tx
        .insertInto('memberships')
        .values({ organization_id: org.id, user_id: ownerId, role: 'owner', joined_at: org.createdAt })
        .execute();
      return true;
    });
  }

  /** The organizations the user belongs to, with the user's role in each. */
  async listFor(userId: string): Promise<Array<Organization & { role: Role }>> {
    const rows = await this.db
      .selectFrom('memberships')
      .innerJoin('organizations', 'organizations.id', 'memberships.organization_id')
      .select([
        'organizations.id as id',
        'organizations.name as name',
        'organizations.created_at as created_at',
        'role',
      ])
      .where('memberships.user_id', '=', userId)
      .orderBy('organizations.created_at', 'asc')
      .orderBy('organizations.id', 'asc')
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, role: asRole(r.role) }));
  }

  /** The user's role in the organization, or undefined when not a member (or no such organization). */
  async roleOf(organizationId: string, userId: string): Promise<Role | undefined> {
    const r = await this.db
      .selectFrom('memberships')
      .select('role')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return r && asRole(r.role);
  }

  async find(id: string): Promise<Organization | undefined> {
    const r = await this.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
    return r && { id: r.id, name: r.name, createdAt: r.created_at };
  }

  /** The sealed callback secret: null when none was made yet, undefined when there is no such organization. */
  async webhookSecret(organizationId: string): Promise<string | null | undefined> {
    const r = await this.db
      .selectFrom('organizations')
      .select('webhook_secret_enc')
      .where('id', '=', organizationId)
      .executeTakeFirst();
    return r ? r.webhook_secret_enc : undefined;
  }

  /**
   * Sets the sealed callback secret. `onlyIfMissing`: only where none is set yet, so two replicas
   * making the first one at once agree on whichever landed first (the caller reads it back).
   */
  async setWebhookSecret(organizationId: string, sealed: string, onlyIfMissing = false): Promise<void> {
    let q = this.db.updateTable('organizations').set({ webhook_secret_enc: sealed }).where('id', '=', organizationId);
    if (onlyIfMissing) q = q.where('webhook_secret_enc', 'is', null);
    await q.execute();
  }

  async members(organizationId: string): Promise<Member[]> {
    const rows = await this.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['memberships.user_id as user_id', 'users.email as email', 'role', 'joined_at'])
      .where('organization_id', '=', organizationId)
      .orderBy('joined_at', 'asc')
      .orderBy('users.email', 'asc')
      .execute();
    return rows.map((r) => ({ userId: r.user_id, email: r.email, role: asRole(r.role), joinedAt: r.joined_at }));
  }

  /** Adds the member; an existing member keeps the stronger of its role and the new one. */
  async addMember(organizationId: string, userId: string, role: Role, at: string): Promise<Role> {
    await this.db
      .insertInto('memberships')
      .values({ organization_id: organizationId, user_id: userId, role, joined_at: at })
      .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing())
      .execute();
    if (role === 'owner')
      await this.db
        .updateTable('memberships')
        .set({ role: 'owner' })
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .execute();
    return (await this.roleOf(organizationId, userId)) ?? role;
  }

  /**
   * Removes the member unless that would leave the organization without an owner. The
   * organization row is locked first so two owners removing each other cannot both succeed.
   */
  async removeMember(organizationId: string, userId: string): Promise<'removed' | 'absent' | 'last-owner'> {
    return this.db.transaction().execute(async (tx) => {
      await tx.updateTable('organizations').set({ id: organizationId }).where('id', '=', organizationId).execute();
      const rows = await tx
        .selectFrom('memberships')
        .select(['user_id', 'role'])
        .where('organization_id', '=', organizationId)
        .execute();
      const target = rows.find((r) => r.user_id === userId);
      if (!target) return 'absent';
      if (target.role === 'owner' && rows.filter((r) => r.role === 'owner').length === 1) return 'last-owner';
      await tx
        .deleteFrom('memberships')
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .execute();
      return 'removed';
    });
  }
}
