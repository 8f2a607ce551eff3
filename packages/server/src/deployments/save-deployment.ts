// The one place deployments are written after a user action or a job. In the same transaction it
// records what must follow: a status callback when the status changed (outbox), and a deploy job
// when a deploy starts. A write guarded by a stale generation loses: someone else changed it.
import { AppError } from '../platform/errors/app-error.js';
import { toStatusView, type Deployment } from '../domain/deployment.js';
import type { DeploymentPatch } from '../platform/store/deployments.js';
import { chatTargetKey, type Services } from '../services.js';
import { enqueueCallback } from '../callbacks/index.js';
import { deployJob } from './ensure-deploy-job.js';

/** What a save touches: the store, the queue (callbacks, deploys) and the chat-target cache. */
export type SaveDeps = Pick<Services, 'transaction' | 'now' | 'deployTimeoutMs' | 'cache'>;

export interface SaveOptions {
  bumpGeneration?: boolean;
  /** Enqueue a deploy job for the new generation. */
  deploy?: boolean;
  /** Answer undefined instead of a 409 when the generation moved on (jobs use this). */
  quiet?: boolean;
  /**
   * A status callback also when only statusMessage changed (the health watch: an active
   * assistant's trouble, and its end, are status updates its owner wants to hear of).
   */
  announceMessage?: boolean;
  /** Write only while the deployment still has this status (a job's view of it may be stale). */
  whileStatus?: Deployment['status'];
}

export async function saveDeployment(
  s: SaveDeps,
  d: Deployment,
  patch: DeploymentPatch,
  opts: SaveOptions & { quiet: true },
): Promise<Deployment | undefined>;
export async function saveDeployment(
  s: SaveDeps,
  d: Deployment,
  patch: DeploymentPatch,
  opts?: SaveOptions,
): Promise<Deployment>;
export async function saveDeployment(
  s: SaveDeps,
  d: Deployment,
  patch: DeploymentPatch,
  opts: SaveOptions = {},
): Promise<Deployment | undefined> {
  const nowIso = s.now().toISOString();
  const saved = await s.transaction(async (r) => {
    const row = await r.deployments.update(
      d.id,
      d.generation,
      { ...patch, updatedAt: nowIso },
      { bumpGeneration: opts.bumpGeneration, whileStatus: opts.whileStatus },
    );
    if (!row) return undefined;
    if (announces(d, row, opts) && row.userCallbackUrl) {
      await enqueueCallback(
        r,
        { ...row, userCallbackUrl: row.userCallbackUrl },
        {
          type: 'deployment.status',
          timestamp: nowIso,
          data: toStatusView(row),
        },
      );
    }
    if (opts.deploy) {
      await r.jobs.enqueue(deployJob(s, row));
    }
    return row;
  });
  s.cache.targets.delete(chatTargetKey(d));
  if (!saved) {
    if (opts.quiet) return undefined;
    throw new AppError(
      'INVALID_STATE',
      'The deployment changed while this request was running; read it again and retry.',
    );
  }
  return saved;
}

function announces(before: Deployment, after: Deployment, opts: SaveOptions): boolean {
  return (
    after.status !== before.status || (opts.announceMessage === true && after.statusMessage !== before.statusMessage)
  );
}
