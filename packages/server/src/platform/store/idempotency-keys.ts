// Purchase Idempotency-Keys (deployments/purchase-idempotently.ts): one row per person and key, the
// request's hash, and the first answer once there is one.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface IdempotencyRow {
  requestHash: string;
  /** The first request's answer (JSON), null while it runs. */
  response: string | null;
}

export class IdempotencyRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Claims `key` for this request after clearing the person's expired claim of it; false when it is held. */
  async claim(userId: string, key: string, requestHash: string, now: string, expiredBefore: string): Promise<boolean> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .where('created_at', '<', expiredBefore)
      .execute();
    const claimed = await this.db
      .insertInto('idempotency_keys')
      .values({ user_id: userId, key, request_hash: requestHash, response: null, created_at: now })
      .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
      .executeTakeFirst();
    return Number(claimed.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async answer(userId: string, key: string, response: string): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ response })
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .execute();
  }

  /** Lets the key be used again (the request it was claimed for failed). */
  async release(userId: string, key: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).execute();
  }

  async find(userId: string, key: string): Promise<IdempotencyRow | undefined> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'response'])
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .executeTakeFirst();
    return row && { requestHash: row.request_hash, response: row.response };
  }
}
