// billing/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export type { GatewayCredentials } from './gateway-credential.js';
export { MAX_COMPLETION_TOKENS } from './gateway/safe-body.js';
export { admitChat } from './meter-chat.js';
export type { ChatMeter, ChatMeterDeps } from './meter-chat.js';
