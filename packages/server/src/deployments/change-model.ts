// PUT …/model (DESIGN §9.3): an active assistant changes its model without a stop. The worker keeps
// running with its credential (same generation): the model gateway pins every call to the stored
// model, so storing it is what applies it; the gateway's cached copy is dropped at once. In any
// other status this is the spec's PATCH of the model, with PATCH's state rule.
import type { Caller, Services } from '../services.js';
import type { ModelInput } from './schemas/assistants.js';
import { loadOwned } from './load-owned.js';
import { resolveModel } from '../chat/index.js';
import { saveDeployment } from './save-deployment.js';
import { updateDeployment, type UpdateDeps } from './update-deployment.js';

export type ChangeModelDeps = UpdateDeps & Pick<Services, 'events'>;

export async function changeModel(s: ChangeModelDeps, caller: Caller, id: string, input: ModelInput) {
  const d = await loadOwned(s, caller, id);
  if (d.status !== 'active') return updateDeployment(s, caller, id, input);
  const patch = resolveModel(s.catalog, s.managedProvider, d.apiMode, input, d);
  if (patch.modelId === d.modelId && patch.modelProvider === d.modelProvider) return d;
  // Only while still active: a stop or redeploy that won the race keeps its own state (409 then).
  const saved = await saveDeployment(s, d, patch, { whileStatus: 'active' });
  s.events.emit('deployment.model_changed', { deploymentId: d.id });
  return saved;
}
