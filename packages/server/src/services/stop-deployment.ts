import type { Caller, Services } from './context.js';
import { loadOwned } from './load-owned.js';
import { checkTransition } from './check-transition.js';
import { removeWorker } from './remove-worker.js';
import { saveDeployment } from './save-deployment.js';

export async function stopDeployment(s: Services, caller: Caller, id: string) {
  const d = await loadOwned(s, caller, id);
  const next = checkTransition('stop', d);
  await removeWorker(s, d);
  // The generation bump makes any deploy still in flight for the old generation a no-op.
  return saveDeployment(s, d, { status: next as 'stopped', statusMessage: 'Stopped; redeploy to start it again.', workerUrl: null }, { bumpGeneration: true });
}
