// Named, expiring leases in the store: one replica at a time holds one, renews it while it works,
// and another takes it over once it lapses (the holder crashed or stopped).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export class LeaseRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Takes or renews `name` for `holder` until now + ttlMs; true when `holder` holds it after. */
  async acquire(name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    const expires = now + ttlMs;
    await this.db
      .insertInto('leases')
      .values({ name, holder, expires_at: expires })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ holder, expires_at: expires })
          .where((eb) => eb.or([eb('leases.holder', '=', holder), eb('leases.expires_at', '<', now)])),
      )
      .execute();
    const row = await this.db.selectFrom('leases').select('holder').where('name', '=', name).executeTakeFirst();
    return row?.holder === holder;
  }

  /** Gives the lease up at once (a clean shutdown), so another replica need not wait it out. */
  async release(name: string, holder: string): Promise<void> {
    await this.db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
  }

  /**
   * The live leases whose names start with `prefix` (no `%` or `_` in it). LIKE, not a range: a
   * range follows the database's collation, which may order punctuation unexpectedly; the table
   * holds a handful of rows, so no index is needed.
   */
  async liveUnder(prefix: string, now: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('leases')
      .select('name')
      .where('name', 'like', `${prefix}%`)
      .where('expires_at', '>=', now)
      .execute();
    return rows.map((r) => r.name);
  }

  /** Deletes the lapsed leases under `prefix` (housekeeping); how many. */
  async dropLapsedUnder(prefix: string, now: number): Promise<number> {
    const r = await this.db
      .deleteFrom('leases')
      .where('name', 'like', `${prefix}%`)
      .where('expires_at', '<', now)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async holder(name: string, now: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('leases')
      .select(['holder', 'expires_at'])
      .where('name', '=', name)
      .executeTakeFirst();
    return row && Number(row.expires_at) >= now ? row.holder : undefined;
  }
}
