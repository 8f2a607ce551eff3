// Browser sessions: only the SHA-256 of the cookie's token is stored, so a copy of the database
// signs nobody in.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface SessionRow {
  id: string;
  userId: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

export interface SessionUser {
  session: SessionRow;
  user: { id: string; email: string; createdAt: string };
}

export class SessionRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(s: SessionRow & { tokenHash: string }): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id: s.id,
        token_hash: s.tokenHash,
        user_id: s.userId,
        created_at: s.createdAt,
        last_seen_at: s.lastSeenAt,
        expires_at: s.expiresAt,
      })
      .execute();
  }

  /** One indexed lookup by the token's hash, with its user; an expired session is not found. */
  async findLive(tokenHash: string, now: string): Promise<SessionUser | undefined> {
    const r = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'sessions.id as id',
        'sessions.user_id as user_id',
        'sessions.created_at as created_at',
        'sessions.last_seen_at as last_seen_at',
        'sessions.expires_at as expires_at',
        'users.email as email',
        'users.created_at as user_created_at',
      ])
      .where('sessions.token_hash', '=', tokenHash)
      .where('sessions.expires_at', '>', now)
      .executeTakeFirst();
    return (
      r && {
        session: {
          id: r.id,
          userId: r.user_id,
          createdAt: r.created_at,
          lastSeenAt: r.last_seen_at,
          expiresAt: r.expires_at,
        },
        user: { id: r.user_id, email: r.email, createdAt: r.user_created_at },
      }
    );
  }

  /** Slides the expiry forward (the caller does it at most once a minute per session). */
  async touch(id: string, lastSeenAt: string, expiresAt: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ last_seen_at: lastSeenAt, expires_at: expiresAt })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', id).execute();
  }

  /** Ends every session of the user except `keep` (password change) or all of them. */
  async deleteAllOf(userId: string, keep?: string): Promise<void> {
    let q = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (keep) q = q.where('id', '!=', keep);
    await q.execute();
  }
}
