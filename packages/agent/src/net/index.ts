// The address policy now lives in the shared contracts; kept here for the agent's own importers.
export {
  isPublicAddress,
  createPublicOnlyAgent,
  publicOnlyLookup,
  assertPublicHost,
  BlockedAddressError,
} from '@berth/contracts/net';
