import type { Job } from '../jobs/queue.js';
import type { JobOutcome } from '../jobs/runner.js';
import type { Services } from './context.js';

/** Cancels a deleted deployment's subscription, retrying with backoff (capped at an hour) until it lands. */
export async function runCancelSubscriptionJob(s: Services, job: Job): Promise<JobOutcome> {
  try {
    await s.payments.cancelSubscription(job.payload.subscriptionId);
    return { done: true };
  } catch (err) {
    const delay = Math.min(3_600_000, 5000 * 2 ** Math.min(job.attempts, 10));
    s.log.error({ deploymentId: job.deploymentId, attempt: job.attempts, err: (err as Error).message }, 'subscription cancellation failed; will retry');
    return { retryAt: new Date(s.now().getTime() + delay), error: (err as Error).message };
  }
}
