// settings/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export { applyLive } from './apply-live.js';
export { assertBotTokenFree, withBotTokenClaim } from './bot-token-owner.js';
export { currentSettings, currentSettingsOf } from './current-settings.js';
export type { SettingsVersion } from './current-settings.js';
