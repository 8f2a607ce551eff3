// callbacks/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export { deliverCallback } from './deliver.js';
export { enqueueCallback } from './enqueue-callback.js';
export { nextCallbackDelayMs } from './retry-schedule.js';
