// The one table that maps error codes to HTTP statuses, for the control plane and the agent alike
// (the control plane passes the agent's answers through, so both must agree). Routes never pick a
// status themselves.
export const ERROR_STATUS = {
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  INVALID_REQUEST: 400,
  INVALID_INPUT: 400,
  INVALID_STATE: 409,
  PAYMENT_NOT_CONFIGURED: 500,
  WORKER_DELETE_FAILED: 502,
  API_DISABLED: 404,
  INTERNAL_ERROR: 500,
  // Statuses the spec leaves open; DESIGN.md §2 decides them.
  UNSUPPORTED_FRAMEWORK: 400,
  ASSISTANT_NOT_READY: 409,
  BAD_GATEWAY: 502,
  // The allowance of the billing period is spent (managed/unlimited) or the owner's byok cap is
  // reached; Retry-After points at the renewal and x-should-retry: false stops SDK retries.
  CREDITS_EXHAUSTED: 429,
  // Too many requests per key per minute, or too many concurrent chats per key or assistant; from
  // the agent, the model provider's own rate limit.
  RATE_LIMITED: 429,
  // A configured cap is reached: slots per user (MAX_SLOTS_PER_USER), sessions per assistant, stored
  // bytes per session. Freed by deleting what holds it, not by waiting (docs/decisions/0016-limits.md).
  QUOTA_EXCEEDED: 409,
  // Accounts (docs/decisions/0019): a signed-in caller may not do this (a cookie request without
  // its CSRF token, a member doing an owner's work); sign-up is closed and no invitation was given;
  // the thing to create exists already (an account with this email).
  FORBIDDEN: 403,
  SIGNUP_CLOSED: 403,
  CONFLICT: 409,
  // A request body over the server's limit (1 MiB on the control plane): 413, not a 400, so
  // clients know to send less rather than to fix the JSON.
  PAYLOAD_TOO_LARGE: 413,
  // One bot token runs one assistant (DESIGN §7.1): another deployment holds this token.
  BOT_TOKEN_IN_USE: 409,
  // One WhatsApp number runs one assistant (DESIGN §9.1): another assistant holds this channel's account.
  CHANNEL_IN_USE: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The error envelope of every answer that is not a success, on both sides. */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: unknown };
}
