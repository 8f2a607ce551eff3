// Per-deployment callback sequence numbers: 1, 2, 3… taken in the transaction that enqueues the
// callback, so two status changes of one deployment never share or swap numbers.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export class CallbackSequenceRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** The deployment's next number; call it in the transaction that enqueues the callback. */
  async next(deploymentId: string): Promise<number> {
    const row = await this.db
      .insertInto('callback_sequences')
      .values({ deployment_id: deploymentId, last: 1 })
      .onConflict((oc) =>
        oc.column('deployment_id').doUpdateSet((eb) => ({ last: eb('callback_sequences.last', '+', 1) })),
      )
      .returning('last')
      .executeTakeFirstOrThrow();
    return Number(row.last);
  }
}
