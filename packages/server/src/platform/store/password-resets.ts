// Password reset links: only the token's SHA-256 is stored; a link is claimed once, before the new
// password is written, so two uses of one link racing each other cannot both win.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { markOnce } from './matching.js';

export class PasswordResetRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(r: { id: string; tokenHash: string; userId: string; createdAt: string; expiresAt: string }) {
    await this.db
      .insertInto('password_resets')
      .values({
        id: r.id,
        token_hash: r.tokenHash,
        user_id: r.userId,
        created_at: r.createdAt,
        expires_at: r.expiresAt,
        used_at: null,
      })
      .execute();
  }

  /** Marks an unused, unexpired link used; its user, or undefined when it cannot be used. */
  async claim(tokenHash: string, now: string): Promise<string | undefined> {
    const row = await this.db
      .updateTable('password_resets')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
    return row?.user_id;
  }

  /** A new link replaces the user's older ones: only the newest works. */
  async expireOthersOf(userId: string, now: string): Promise<void> {
    await markOnce(this.db, 'password_resets', { user_id: userId }, 'used_at', now);
  }
}
