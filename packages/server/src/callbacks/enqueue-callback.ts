// Every callback goes through here: it takes the deployment's next sequence number and puts it in
// the payload receivers see, next to `type` and `timestamp`. Given a transaction's repositories,
// the number and the job are written in it (two status changes never share or swap numbers).
import type { Deployment } from '../domain/deployment.js';
import type { Repos } from '../platform/store/repos.js';

export interface CallbackEvent {
  type: string;
  timestamp: string;
  data: unknown;
}

export async function enqueueCallback(
  r: Pick<Repos, 'jobs' | 'callbackSequences'>,
  d: Pick<Deployment, 'id' | 'generation' | 'userId' | 'organizationId'> & { userCallbackUrl: string },
  event: CallbackEvent,
): Promise<void> {
  const sequence = await r.callbackSequences.next(d.id);
  await r.jobs.enqueue({
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
  });
}
