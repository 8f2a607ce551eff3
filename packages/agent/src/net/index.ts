export { isPublicAddress } from './public-address.js';
export { createPublicOnlyAgent, publicOnlyLookup, assertPublicHost, BlockedAddressError } from './pinned-agent.js';
