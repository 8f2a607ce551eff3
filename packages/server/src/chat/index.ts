// chat/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export type { ChatProxy } from './proxy/chat-proxy.js';
export { PassThrough } from './proxy/pass-through.js';
export { UpstreamPools, newUpstreamPool, upstreamAddress } from './proxy/upstream-pools.js';
export { notReadyRetry } from './resolve-chat-target.js';
export { resolveModel } from './resolve-model.js';
