import { assertCaller, type Caller, type Services } from './context.js';

/** The spec hides pending-payment slots older than one hour: abandoned checkouts. */
export const PENDING_VISIBLE_MS = 60 * 60 * 1000;

export function listDeployments(s: Services, caller: Caller) {
  assertCaller(caller);
  const cutoff = new Date(s.now().getTime() - PENDING_VISIBLE_MS).toISOString();
  return s.deployments.listVisible(caller.userId, cutoff);
}
