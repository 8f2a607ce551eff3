// workers/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export { workerPages } from './port.js';
export type { AssistantReply, WorkerHealth, WorkersPort } from './port.js';
export { REMOVAL_MARKS, removalsUnderway, removeWorker } from './remove-worker.js';
export type { WorkerRemoval } from './remove-worker.js';
export { buildWorkerSpec } from './spec.js';
export type { SpecDeps } from './spec.js';
