// Response ids that carry their conversation: a stored response's id names the worker's API
// session (the X-Assistant-Session-Id mechanism, chat/api-sessions.ts) its turn was kept in, so
// `previous_response_id` continues that session on any replica and after a restart, without a
// table of its own (docs/decisions/0032-responses-api.md).
import { randomBytes } from 'node:crypto';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** `resp_<session>_<turn>`: a turn kept in a session; `resp_<turn>`: a turn kept nowhere. */
const SESSION_ID = /^resp_([0-9a-f]{24})_[0-9a-f]{16}$/;
const STATELESS_ID = /^resp_[0-9a-f]{40}$/;

/** The worker's session id of a conversation started through the Responses API. */
const sessionName = (key: string) => `responses-${key}`;

export interface ResponseIds {
  responseId: string;
  /** The X-Assistant-Session-Id the turn runs under; undefined when nothing is kept. */
  session: string | undefined;
}

/** Ids for a turn that starts a kept conversation. */
export function newSessionTurn(): ResponseIds {
  const key = hex(12);
  return { responseId: `resp_${key}_${hex(8)}`, session: sessionName(key) };
}

/** Ids for a turn that continues the conversation of `previous` (an id from sessionOfResponse). */
export function nextTurn(sessionKey: string): ResponseIds {
  return { responseId: `resp_${sessionKey}_${hex(8)}`, session: sessionName(sessionKey) };
}

/** Ids for a turn the worker keeps nothing of. */
export function statelessTurn(): ResponseIds {
  return { responseId: `resp_${hex(20)}`, session: undefined };
}

/** What a previous_response_id names: a kept conversation's key, a turn kept nowhere, or nothing of ours. */
export function sessionOfResponse(id: string): { key: string } | 'stateless' | undefined {
  const m = SESSION_ID.exec(id);
  if (m) return { key: m[1]! };
  return STATELESS_ID.test(id) ? 'stateless' : undefined;
}
