// Every callback goes through here: it takes the deployment's next sequence number (in the
// caller's transaction) and puts it in the payload receivers see, next to `type` and `timestamp`.
import type { Kysely, Transaction } from 'kysely';
import type { Deployment } from '../domain/deployment.js';
import type { JobQueue } from '../platform/jobs/queue.js';
import { nextCallbackSequence } from '../platform/store/callback-sequences.js';
import type { Database } from '../platform/store/schema.js';

export interface CallbackEvent {
  type: string;
  timestamp: string;
  data: unknown;
}

export async function enqueueCallback(
  jobs: Pick<JobQueue, 'enqueue'>,
  db: Kysely<Database> | Transaction<Database>,
  d: Pick<Deployment, 'id' | 'generation' | 'userId' | 'organizationId'> & { userCallbackUrl: string },
  event: CallbackEvent,
): Promise<void> {
  const sequence = await nextCallbackSequence(db, d.id);
  await jobs.enqueue(
    {
      kind: 'callback',
      deploymentId: d.id,
      generation: d.generation,
      // The organization's deployments are signed with the organization's secret (deliver-callback-job.ts).
      payload: {
        url: d.userCallbackUrl,
        userId: d.userId,
        organizationId: d.organizationId,
        sequence,
        event: { ...event, sequence },
      },
    },
    db,
  );
}
