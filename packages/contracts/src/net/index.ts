// The network address policy: which addresses are public, and a dispatcher that only connects there.
export { isPublicAddress } from './public-address.js';
export { createPublicOnlyAgent, publicOnlyLookup, assertPublicHost, BlockedAddressError } from './pinned-agent.js';
export { describeNetworkError } from './describe-error.js';
export { multipartBody } from './multipart.js';
