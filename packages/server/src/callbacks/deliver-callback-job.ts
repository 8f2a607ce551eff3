import type { Dispatcher } from 'undici';
import { deliverCallback } from './deliver.js';
import { signWebhook } from './sign.js';
import { nextCallbackDelayMs } from './retry-schedule.js';
import type { Job } from '../platform/store/jobs.js';
import type { JobOutcome } from '../platform/jobs/runner.js';
import type { Services } from '../services.js';
import { organizationSecret } from '../accounts/index.js';

/** How soon a callback waiting for an earlier one of its deployment looks again. */
export const CALLBACK_TURN_WAIT_MS = 200;

/**
 * Callbacks of one deployment go out in sequence order: one waits while an earlier one has not
 * had its first attempt yet or is being attempted right now. An earlier one that failed and waits
 * for its retry does not hold the later ones back (its retries go on for about 32 hours); its `sequence` tells the
 * receiver it is older than what it already has.
 */
async function earlierInFlight(s: Pick<Services, 'jobs' | 'now'>, job: Job<'callback'>): Promise<boolean> {
  const mine = Number(job.payload.sequence);
  if (!job.deploymentId || !Number.isFinite(mine)) return false;
  const nowIso = s.now().toISOString();
  return (await s.jobs.pendingFor(job.deploymentId, 'callback')).some((j) => {
    if (j.id === job.id) return false;
    const seq = Number(JSON.parse(j.payload).sequence);
    const running = j.locked_until !== null && j.locked_until > nowIso;
    return seq < mine && (Number(j.attempts) === 0 || running);
  });
}

/**
 * An organization's deployment signs with the organization's secret, a person's with theirs. Jobs
 * queued before organizationId was in the payload sign with the buyer's, as they did then.
 */
async function signingSecret(
  s: Pick<Services, 'users' | 'secrets' | 'accounts'>,
  payload: Job<'callback'>['payload'],
): Promise<string | undefined> {
  if (typeof payload.organizationId === 'string') return organizationSecret(s, payload.organizationId);
  const user = await s.users.findById(payload.userId);
  return user && s.secrets.open(user.webhookSecretEnc);
}

/** A callback job: the payload was fixed when the status changed; the message id is stable across retries. */
export async function runCallbackJob(
  s: Pick<Services, 'callbackAllowInsecure' | 'jobs' | 'log' | 'now' | 'secrets' | 'users' | 'accounts'>,
  dispatcher: Dispatcher,
  job: Job<'callback'>,
): Promise<JobOutcome> {
  if (await earlierInFlight(s, job)) return { waitUntil: new Date(s.now().getTime() + CALLBACK_TURN_WAIT_MS) };
  const secret = await signingSecret(s, job.payload);
  if (!secret) return { failed: 'the owner no longer exists' };
  const body = JSON.stringify(job.payload.event);
  const id = `msg_${job.id}`;
  const timestamp = Math.floor(s.now().getTime() / 1000);
  const signature = signWebhook(secret, id, timestamp, body);
  const res = await deliverCallback(
    { url: job.payload.url, id, timestamp, body, signature },
    dispatcher,
    s.callbackAllowInsecure,
  );
  if (res.ok) return { done: true };
  const delay = res.retry ? nextCallbackDelayMs(job.attempts) : undefined;
  s.log.info(
    { deploymentId: job.deploymentId, attempt: job.attempts, reason: res.reason, retryInMs: delay },
    'callback not delivered',
  );
  return delay === undefined
    ? { failed: res.reason }
    : { retryAt: new Date(s.now().getTime() + delay), error: res.reason };
}
