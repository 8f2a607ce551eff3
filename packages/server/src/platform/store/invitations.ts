// Invitations: to sign up while SIGNUP=closed (no organization) or to join an organization. Only
// the token's SHA-256 is stored; a token is used once and expires.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { markOnce } from './matching.js';
import type { Role } from './organizations.js';

export interface Invitation {
  id: string;
  email: string;
  organizationId: string | null;
  role: Role | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  /** The owner who made an organization invitation (null for a sign-up invitation). */
  invitedBy: string | null;
}

export class InvitationRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(i: Invitation & { tokenHash: string }): Promise<void> {
    await this.db
      .insertInto('invitations')
      .values({
        id: i.id,
        token_hash: i.tokenHash,
        email: i.email,
        organization_id: i.organizationId,
        role: i.role,
        created_at: i.createdAt,
        expires_at: i.expiresAt,
        used_at: null,
        invited_by: i.invitedBy,
      })
      .execute();
  }

  /** An unused, unexpired invitation by its token's hash. */
  async findUsable(tokenHash: string, now: string): Promise<Invitation | undefined> {
    const r = await this.db
      .selectFrom('invitations')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return (
      r && {
        id: r.id,
        email: r.email,
        organizationId: r.organization_id,
        role: r.role === 'owner' ? 'owner' : r.role === 'member' ? 'member' : null,
        createdAt: r.created_at,
        expiresAt: r.expires_at,
        usedAt: r.used_at,
        invitedBy: r.invited_by,
      }
    );
  }

  /** Marks it used; false when someone else used it first (single use under concurrency). */
  async use(id: string, at: string): Promise<boolean> {
    return (await markOnce(this.db, 'invitations', { id }, 'used_at', at)) > 0;
  }

  /** Gives a claimed invitation back (the sign-up it was claimed for failed). */
  async release(id: string): Promise<void> {
    await this.db.updateTable('invitations').set({ used_at: null }).where('id', '=', id).execute();
  }
}
