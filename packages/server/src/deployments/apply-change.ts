// Writes what the state machine decided. Jobs and verbs call this instead of choosing statuses.
import type { Deployment, Observed } from '../domain/deployment.js';
import type { Change } from '../domain/lifecycle.js';
import type { DeploymentPatch } from '../platform/store/deployments.js';
import { saveDeployment, type SaveDeps, type SaveOptions } from './save-deployment.js';

export function patchFor(c: Change): DeploymentPatch {
  return {
    status: c.status,
    statusMessage: c.statusMessage,
    // A deleted deployment's desire is its tombstone; the row itself goes.
    ...(c.desired !== 'deleted' ? { desired: c.desired } : {}),
    ...(c.observed ? { observed: c.observed } : {}),
    ...(c.clearWorkerUrl ? { workerUrl: null } : {}),
    ...(c.suspendedReason !== undefined ? { suspendedReason: c.suspendedReason } : {}),
  };
}

/**
 * Records what the backend reported for the current generation's deploy; no status changes. Only
 * while it is still deploying: a deploy job run twice at once (its lease lapsed during a slow
 * createWorker, and the runner started it again) must not mark the deployment the other run just
 * made active as `starting` (active with its worker "starting" for good: the crash test, seed 439254).
 */
export function observe(s: SaveDeps, d: Deployment, observed: Observed) {
  return saveDeployment(s, d, { observed }, { quiet: true, whileStatus: 'deploying' });
}

/** Saves the change guarded by the generation `d` was read at; undefined when someone else won. */
export function applyChange(
  s: SaveDeps,
  d: Deployment,
  c: Change,
  extra: DeploymentPatch = {},
  opts: Omit<SaveOptions, 'quiet' | 'bumpGeneration'> = {},
) {
  return saveDeployment(s, d, { ...patchFor(c), ...extra }, { ...opts, bumpGeneration: c.bumpGeneration, quiet: true });
}
