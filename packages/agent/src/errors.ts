// The agent's one error type, in the same envelope and with the same code table as the control
// plane's (@berth/contracts), which passes the agent's answers through unchanged.
import { ERROR_STATUS, type ErrorCode, type ErrorEnvelope } from '@berth/contracts/errors';

/** The codes the agent answers with; the others belong to the control plane's lifecycle. */
export type AgentErrorCode = Extract<
  ErrorCode,
  | 'UNAUTHORIZED'
  | 'INVALID_REQUEST'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'CREDITS_EXHAUSTED'
  | 'QUOTA_EXCEEDED'
  | 'BAD_GATEWAY'
  | 'INTERNAL_ERROR'
  // A webhook update for a channel that is not connected yet (admin/update-routes.ts): asked again.
  | 'ASSISTANT_NOT_READY'
>;

export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
    /** `error.details` of the envelope (CREDITS_EXHAUSTED: `renewsAt`, as the control plane says it). */
    readonly details?: Record<string, unknown>,
    /** Response headers that go with it (Retry-After, x-should-retry). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AgentError';
  }
  get status() {
    return ERROR_STATUS[this.code];
  }
  toJSON(): ErrorEnvelope {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details !== undefined ? { details: this.details } : {}),
      },
    };
  }
}
