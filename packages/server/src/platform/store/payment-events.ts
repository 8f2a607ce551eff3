// Payment provider event ids already applied: a redelivered event is recognised and changes nothing.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export class PaymentEventRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records the event; false when it was recorded before (a redelivery). */
  async record(id: string, type: string, receivedAt: string): Promise<boolean> {
    const inserted = await this.db
      .insertInto('payment_events')
      .values({ id, type, received_at: receivedAt })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
