// The one retry delay: doubling from a base, capped. Every retry in the control plane (job
// handlers, the runner, the agent host's restarts) takes its delay from here.

/** base · 2^attempt milliseconds, at most capMs; attempt counts from 0. */
export function backoff(attempt: number, o: { baseMs: number; capMs: number }): number {
  // The exponent stops growing long before it could overflow: the cap has been reached by then.
  return Math.min(o.capMs, o.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
}
