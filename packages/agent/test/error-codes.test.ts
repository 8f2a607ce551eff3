import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_STATUS } from '@berth/contracts';
import { AgentError } from '../src/errors.js';

// The Errors table of the API contract (the spec): these codes and statuses are law.
const SPEC: Record<string, number> = {
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  INVALID_REQUEST: 400,
  INVALID_INPUT: 400,
  INVALID_STATE: 409,
  PAYMENT_NOT_CONFIGURED: 500,
  WORKER_DELETE_FAILED: 502,
  API_DISABLED: 404,
  INTERNAL_ERROR: 500,
};
// Codes whose status the spec leaves open ("not shown"), decided in DESIGN.md §2, and Berth's own.
const OPEN = [
  'UNSUPPORTED_FRAMEWORK',
  'ASSISTANT_NOT_READY',
  'BAD_GATEWAY',
  'CREDITS_EXHAUSTED',
  'RATE_LIMITED',
  'QUOTA_EXCEEDED',
  // Accounts and organizations (docs/decisions/0019): only their routes answer these.
  'FORBIDDEN',
  'SIGNUP_CLOSED',
  'CONFLICT',
  // A body over the server's limit (issue 28): 413, not a 400.
  'PAYLOAD_TOO_LARGE',
  // One bot token runs one assistant (DESIGN §7.1).
  'BOT_TOKEN_IN_USE',
  // One WhatsApp number runs one assistant (DESIGN §9.1).
  'CHANNEL_IN_USE',
];

test('the shared table keeps every code and status of the spec, and nothing unexplained', () => {
  for (const [code, status] of Object.entries(SPEC)) assert.equal(ERROR_STATUS[code as 'NOT_FOUND'], status, code);
  assert.deepEqual(Object.keys(ERROR_STATUS).sort(), [...Object.keys(SPEC), ...OPEN].sort());
});

test("the agent's errors answer the shared table's status", () => {
  for (const code of ['UNAUTHORIZED', 'INVALID_REQUEST', 'RATE_LIMITED', 'CREDITS_EXHAUSTED', 'BAD_GATEWAY'] as const) {
    const err = new AgentError(code, 'x');
    assert.equal(err.status, ERROR_STATUS[code]);
    assert.deepEqual(err.toJSON(), { error: { code, message: 'x' } });
  }
});
