// deployments/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export { applyChange, patchFor } from './apply-change.js';
export { lifecycleStateOf } from './check-transition.js';
export { choosePlacement } from './choose-placement.js';
export { ensureDeployJob } from './ensure-deploy-job.js';
export { loadOwned } from './load-owned.js';
export { IDEMPOTENCY_TTL_MS } from './purchase-idempotently.js';
export { saveDeployment } from './save-deployment.js';
export type { SaveDeps } from './save-deployment.js';
