// Payment clean-up after a slot is deleted, through the outbox: a payment provider that is down
// must not block the delete, and each call is retried with backoff (capped at an hour) until it
// lands. Both calls are idempotent, so a retry after a lost answer is harmless.
import type { Job } from '../platform/store/jobs.js';
import { backoff } from '../platform/jobs/backoff.js';
import type { JobOutcome } from '../platform/jobs/runner.js';
import type { Services } from '../services.js';

/** Stripe lets a Checkout Session live 24 hours unless told otherwise; after that it expires by itself. */
export const CHECKOUT_LIFETIME_MS = 24 * 3_600_000;

/**
 * One payment call of a job: done once it lands; on an error, retried with backoff unless `pointless`
 * says a retry could no longer matter (the job is then done).
 */
async function attempt(
  s: Pick<Services, 'now' | 'log'>,
  job: Job,
  what: string,
  call: () => Promise<unknown>,
  pointless: () => boolean = () => false,
): Promise<JobOutcome> {
  try {
    await call();
    return { done: true };
  } catch (err) {
    if (pointless()) return { done: true };
    const delay = backoff(job.attempts, { baseMs: 5000, capMs: 3_600_000 });
    s.log.error(
      { deploymentId: job.deploymentId, attempt: job.attempts, err: (err as Error).message },
      `${what} failed; will retry`,
    );
    return { retryAt: new Date(s.now().getTime() + delay), error: (err as Error).message };
  }
}

/** Cancels the subscription of a deleted deployment (or of one whose slot is gone). */
export function runCancelSubscriptionJob(
  s: Pick<Services, 'payments' | 'now' | 'log'>,
  job: Job<'cancel_subscription'>,
): Promise<JobOutcome> {
  return attempt(s, job, 'subscription cancellation', () => s.payments.cancelSubscription(job.payload.subscriptionId));
}

/** Expires the checkout of a slot deleted before it was paid, so its link can no longer take money. */
export function runExpireCheckoutJob(
  s: Pick<Services, 'payments' | 'now' | 'log'>,
  job: Job<'expire_checkout'>,
): Promise<JobOutcome> {
  return attempt(
    s,
    job,
    'checkout expiry',
    () => s.payments.expireCheckout(job.payload.checkoutId),
    () => {
      const expired = s.now().getTime() > Date.parse(job.payload.expiresBy);
      if (expired) {
        s.log.warn({ deploymentId: job.deploymentId }, 'checkout expiry gave up: the checkout has expired by itself');
      }
      return expired;
    },
  );
}
