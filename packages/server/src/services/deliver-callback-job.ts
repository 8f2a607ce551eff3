import type { Dispatcher } from 'undici';
import { deliverCallback } from '../callbacks/deliver.js';
import { signWebhook } from '../callbacks/sign.js';
import { nextCallbackDelayMs } from '../callbacks/retry-schedule.js';
import type { Job } from '../jobs/queue.js';
import type { JobOutcome } from '../jobs/runner.js';
import type { Services } from './context.js';

/** A callback job: the payload was fixed when the status changed; the message id is stable across retries. */
export async function runCallbackJob(s: Services, dispatcher: Dispatcher, job: Job): Promise<JobOutcome> {
  const user = await s.users.findById(job.payload.userId);
  if (!user) return { failed: 'the user no longer exists' };
  const body = JSON.stringify(job.payload.event);
  const id = `msg_${job.id}`;
  const timestamp = Math.floor(s.now().getTime() / 1000);
  const signature = signWebhook(s.secrets.open(user.webhookSecretEnc), id, timestamp, body);
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
