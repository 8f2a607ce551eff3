// A settings change reaches a running worker in place (the agent swaps prompt, tools and access
// without restarting its bot). Only a worker that exists is touched: the agent answers 404 for a
// name it does not run and never creates one, so a change racing a stop or a delete cannot bring
// a worker back. A deploy that starts meanwhile reads the newest version itself (workers/spec.ts),
// and one that built its spec just before this write pushes again once it is up (deploy-deployment.ts).
import type { AssistantSettings } from '@berth/contracts/settings';
import { wantsWorker } from '../domain/lifecycle.js';
import type { Services } from '../services.js';

export async function applyLive(
  s: Pick<Services, 'deployments' | 'workers' | 'log'>,
  deploymentId: string,
  settings: AssistantSettings,
): Promise<'applied' | 'not_running'> {
  const d = await s.deployments.findById(deploymentId);
  if (!d || !wantsWorker(d.desired)) return 'not_running';
  try {
    return (await s.workers.applySettings(d.workerName, settings)) === 'applied' ? 'applied' : 'not_running';
  } catch (err) {
    // Stored either way: the next deploy or the worker's next start uses the new version.
    s.log.warn({ deploymentId, err: (err as Error).message }, 'pushing settings to the running worker failed');
    return 'not_running';
  }
}
