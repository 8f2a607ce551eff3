// The agent's one error type, in the same envelope as the control plane's.
export type AgentErrorCode =
  | 'UNAUTHORIZED'
  | 'INVALID_REQUEST'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'CREDITS_EXHAUSTED'
  | 'QUOTA_EXCEEDED'
  | 'BAD_GATEWAY'
  | 'INTERNAL_ERROR';

const STATUS: Record<AgentErrorCode, number> = {
  UNAUTHORIZED: 401,
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  CREDITS_EXHAUSTED: 429,
  // A session cap (sessions per agent, bytes per session): the control plane's code and status.
  QUOTA_EXCEEDED: 409,
  BAD_GATEWAY: 502,
  INTERNAL_ERROR: 500,
};

export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AgentError';
  }
  get status() {
    return STATUS[this.code];
  }
  toJSON() {
    return { error: { code: this.code, message: this.message } };
  }
}
