// The operator's per-assistant placement on Kubernetes (`berth admin placement`). Recorded in the
// store; the workers backend reads it when it next creates the assistant's worker.
import type { DeploymentRepo } from '../platform/store/deployments.js';
import type { WorkerPlacementRepo } from '../platform/store/worker-placements.js';

export const PLACEMENT_CHOICES = ['shared', 'dedicated', 'default'] as const;
export type PlacementChoice = (typeof PLACEMENT_CHOICES)[number];

export interface PlacementDeps {
  deployments: Pick<DeploymentRepo, 'findById'>;
  placements: Pick<WorkerPlacementRepo, 'choose'>;
  now: () => Date;
}

export async function choosePlacement(deps: PlacementDeps, deploymentId: string, choice: string) {
  if (!(PLACEMENT_CHOICES as readonly string[]).includes(choice))
    throw new Error(`placement must be one of ${PLACEMENT_CHOICES.join(', ')}, not "${choice}"`);
  const d = await deps.deployments.findById(deploymentId.toLowerCase());
  if (!d) throw new Error(`no deployment ${deploymentId}; the ids are listed by: berth admin deployments list`);
  const placement = choice === 'default' ? undefined : (choice as 'shared' | 'dedicated');
  await deps.placements.choose(d.workerName, placement, deps.now());
  return { deploymentId: d.id, workerName: d.workerName, status: d.status, placement: choice as PlacementChoice };
}
