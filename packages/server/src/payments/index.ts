// payments/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export { CHECKOUT_LIFETIME_MS } from './cancel-subscription-job.js';
export { checkoutLink } from './checkout-link.js';
export { listPlans } from './plans.js';
