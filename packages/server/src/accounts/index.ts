// accounts/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export { cachedKeyOwner } from './authenticate.js';
export { createApiKey } from './create-api-key.js';
export { apiKeyIn } from './identify.js';
export { inviteToSignUp } from './invitations.js';
export { LOGIN_WINDOW_MS } from './login-limit.js';
export { listApiKeys, revokeApiKey, showUser } from './manage-api-keys.js';
export { organizationSecret } from './organization-secret.js';
export { createResetLink } from './password-reset.js';
export { OrganizationView, UserView } from './schemas/accounts.js';
export { whoami } from './whoami.js';
