// The deploy job: create the worker, wait until its health says ready (Telegram accepted the
// token), then `active`; an error or the deadline makes it `failed` with a reason a person can act
// on. Every write is guarded by the job's generation, so a stop or redeploy that came meanwhile wins.
// The statuses come from the lifecycle state machine; whenever the job ends without its deployment
// wanting the worker (failed, stopped, deleted meanwhile), it deletes the worker it may have made.
import { buildWorkerSpec, type SpecDeps, type WorkerHealth } from '../workers/index.js';
import { mcpServersForWorker } from '../mcp/index.js';
import type { Job } from '../platform/store/jobs.js';
import { channelsForWorker } from '../channels/index.js';
import type { JobContext, JobOutcome } from '../platform/jobs/runner.js';
import type { Services } from '../services.js';
import { decideEvent, wantsWorker, type SystemEvent } from '../domain/lifecycle.js';
import { applyChange, observe } from './apply-change.js';
import { type SaveDeps, saveDeployment } from './save-deployment.js';
import { currentSettings, applyLive } from '../settings/index.js';

// A worker is usually ready within tens of milliseconds of being made (the local agent host only
// has to hear back from Telegram): the health checks start close together and back off to POLL_MS.
const POLL_MS = 250;
const FIRST_POLL_MS = 10;
/**
 * The job's own outcome lands only on the deploy it started: a run of the same generation that
 * lost its lease and was started again must not make the deployment the other run already made
 * active (or failed) so a second time, telling its owner twice.
 */
const ONLY_WHILE_DEPLOYING = { whileStatus: 'deploying' } as const;

/** A deploy job: the worker built from the record and its settings, created, and its state saved. */
export type DeployJobDeps = Pick<
  Services,
  'settings' | 'mcpServers' | 'channels' | 'deployments' | 'events' | 'log' | 'workers'
> &
  SpecDeps &
  SaveDeps;

export async function runDeployJob(s: DeployJobDeps, job: Job<'deploy'>, ctx: JobContext): Promise<JobOutcome> {
  const current = async () => {
    const d = await s.deployments.findById(job.deploymentId!);
    return d && d.generation === job.generation && d.status === 'deploying' ? d : undefined;
  };
  let d = await current();
  if (!d) return { done: true }; // superseded by a stop, redeploy or delete
  const workerName = d.workerName;
  /** Superseded: remove the worker unless the deployment (maybe a newer generation) still wants it. */
  const superseded = async () => {
    const now = await s.deployments.findById(job.deploymentId!);
    if (!now || !wantsWorker(now.desired)) await removeUnwanted(s, job.deploymentId!, workerName);
    return { done: true } as const;
  };
  const deadline = Date.parse(job.payload.deadline ?? '') || s.now().getTime() + s.deployTimeoutMs;
  const fail = async (e: Extract<SystemEvent, { reason: string }>) => {
    s.log.warn({ deploymentId: d!.id, reason: e.reason }, 'deploy failed');
    s.events.emit('deployment.failed', { deploymentId: d!.id, reason: e.reason });
    const decision = decideEvent(e, d!);
    if (decision.ok && decision.change) await applyChange(s, d!, decision.change, {}, ONLY_WHILE_DEPLOYING);
    return superseded();
  };
  let workerUrl: string;
  // A new deploy runs the newest settings version.
  const built = await currentSettings(s, d);
  try {
    ({ workerUrl } = await s.workers.createWorker(
      buildWorkerSpec(s, d, built.settings, await mcpServersForWorker(s, d.id), await channelsForWorker(s, d.id)),
    ));
  } catch (err) {
    if (s.now().getTime() < deadline && isTransient(err)) {
      return { retryAt: new Date(s.now().getTime() + 2000), error: (err as Error).message };
    }
    return fail({ kind: 'deploy_failed', reason: (err as Error).message });
  }
  // A stop or delete may have landed while createWorker was in flight (then this write loses).
  d = await current();
  d = d && (await observe(s, d, 'starting'));
  if (!d) return superseded();
  let reason = 'the worker did not report ready';
  let lastLook = Date.now();
  let wait = FIRST_POLL_MS;
  let shown = d.statusMessage;
  for (;;) {
    const health: WorkerHealth = await s.workers
      .workerHealth(d.workerName)
      .catch((err) => ({ ready: false, failed: false, reason: (err as Error).message }));
    if (health.ready) break;
    if (health.reason) reason = health.reason;
    if (health.failed) return fail({ kind: 'deploy_failed', reason });
    // The person watching sees what the deploy waits for as soon as the worker knows it, not only
    // when the deadline passes (a closed Telegram port was known from the first health poll).
    const progress: string | undefined = health.reason ? progressMessage(health.reason) : undefined;
    if (progress && progress !== shown) {
      d = await saveDeployment(s, d, { statusMessage: progress }, { quiet: true, whileStatus: 'deploying' });
      if (!d) return superseded();
      shown = progress;
    }
    if (s.now().getTime() >= deadline) {
      return fail({
        kind: 'deadline_passed',
        reason: `the worker was not ready within ${Math.round(s.deployTimeoutMs / 1000)} s (${reason}).`,
      });
    }
    // Shutting down: give the job back so this or another replica picks it up again.
    if (ctx.signal.aborted)
      return { retryAt: s.now(), error: 'the control plane stopped while waiting for the worker' };
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, POLL_MS);
    // A stop, redeploy or delete meanwhile ends the wait (the runner keeps the job's lease).
    if (Date.now() - lastLook > 5000) {
      lastLook = Date.now();
      d = await current();
      if (!d) return superseded();
    }
  }
  const decision = decideEvent({ kind: 'deploy_succeeded' }, d);
  const saved =
    decision.ok && decision.change
      ? await applyChange(s, d, decision.change, { workerUrl }, ONLY_WHILE_DEPLOYING)
      : undefined;
  if (!saved) {
    s.log.info({ deploymentId: d.id }, 'deploy superseded by a newer change');
    return superseded();
  }
  // A settings change stored after this job built its spec found no worker to push to: push it now.
  const newest = await currentSettings(s, saved);
  if (newest.version !== built.version) await applyLive(s, saved.id, newest.settings);
  return { done: true };
}

/** "Waiting for Telegram: getMe failed: connection refused (attempt 3)", as the worker says it. */
export function progressMessage(workerReason: string): string {
  const text = workerReason.replace(/\s+/g, ' ').trim().slice(0, 300);
  return /^waiting\b/i.test(text) ? text : `Waiting for the worker: ${text}`;
}

async function removeUnwanted(s: Pick<Services, 'workers' | 'log'>, deploymentId: string, workerName: string) {
  await s.workers
    .deleteWorker(workerName)
    .catch((err) =>
      s.log.warn({ deploymentId, err: (err as Error).message }, 'removing the worker of a superseded deploy failed'),
    );
}

function isTransient(err: unknown): boolean {
  const code =
    (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  return (
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'UND_ERR_SOCKET' ||
    (err as { status?: number }).status === 503
  );
}
