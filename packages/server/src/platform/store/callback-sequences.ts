// Per-deployment callback sequence numbers: 1, 2, 3… taken in the transaction that enqueues the
// callback, so two status changes of one deployment never share or swap numbers.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

export async function nextCallbackSequence(
  db: Kysely<Database> | Transaction<Database>,
  deploymentId: string,
): Promise<number> {
  const row = await db
    .insertInto('callback_sequences')
    .values({ deployment_id: deploymentId, last: 1 })
    .onConflict((oc) =>
      oc.column('deployment_id').doUpdateSet((eb) => ({ last: eb('callback_sequences.last', '+', 1) })),
    )
    .returning('last')
    .executeTakeFirstOrThrow();
  return Number(row.last);
}
