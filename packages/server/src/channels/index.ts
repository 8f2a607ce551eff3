// channels/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export { verifyTokenOf } from './webhook-address.js';
export { channelsForWorker, channelsForWorkers } from './worker-channels.js';
