// The one error table lives in @berth/contracts, shared with the agent; imported from here as before.
export { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '@berth/contracts';
