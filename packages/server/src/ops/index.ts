// ops/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export type { Metrics } from './metrics.js';
export { buildInfo } from './version.js';
