// Hands one stored webhook update to its assistant's worker (POST {assistant}/updates on the agent,
// real HTTP through the workers backend), then marks it delivered. At least once: a worker that is
// starting, restarting or unreachable is asked again with backoff; a control plane killed mid-way
// leaves the job to another runner once its lease lapses. The agent answers a repeat once
// (its own record of update keys), so a second delivery is not a second reply.
import type { Job } from '../platform/store/jobs.js';
import type { JobOutcome } from '../platform/jobs/runner.js';
import { backoff } from '../platform/jobs/backoff.js';
import { wantsWorker } from '../domain/lifecycle.js';
import type { Services } from '../services.js';

/** About an hour of retries (doubling from 250 ms, capped at 30 s): a worker that long away is broken. */
export const UPDATE_ATTEMPTS = 130;
const RETRY = { baseMs: 250, capMs: 30_000 };

export async function runChannelUpdateJob(
  s: Pick<Services, 'channelUpdates' | 'deployments' | 'workers' | 'now' | 'log'>,
  job: Job<'channel_update'>,
): Promise<JobOutcome> {
  const repo = s.channelUpdates;
  const u = await repo.get(job.payload.updateId);
  // Gone with its assistant (deleted), or delivered by a run whose completion was lost.
  if (!u || u.deliveredAt) return { done: true };
  const d = await s.deployments.findById(u.deploymentId);
  if (!d) return { done: true };
  if (!wantsWorker(d.desired))
    return { failed: 'the assistant was stopped before this update reached it; its users were not answered' };
  const retry = (why: string): JobOutcome =>
    job.attempts >= UPDATE_ATTEMPTS
      ? { failed: `the worker did not take the update: ${why}` }
      : { retryAt: new Date(s.now().getTime() + backoff(job.attempts - 1, RETRY)), error: why };
  let res: { status: number; json: any };
  try {
    res = await s.workers.assistantCall(d.workerName, 'POST', '/updates', {
      channel: u.type,
      channelId: u.channelId,
      updateKey: u.updateKey,
      update: JSON.parse(u.body),
    });
  } catch (err) {
    return retry((err as Error).message);
  }
  if (res.status === 200) {
    await repo.markDelivered(u.id, s.now().toISOString());
    return { done: true };
  }
  // 404: the worker is not up yet (deploying, restarting); 409: its channel is still connecting;
  // 5xx: it could not take it now.
  if (res.status === 404 || res.status === 409 || res.status >= 500)
    return retry(`the worker answered ${res.status}${res.json?.error?.message ? `: ${res.json.error.message}` : ''}`);
  return { failed: `the worker refused the update (${res.status}): ${res.json?.error?.message ?? 'no reason given'}` };
}
