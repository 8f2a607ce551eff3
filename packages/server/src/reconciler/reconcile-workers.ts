// Makes the worker backend match the store at once: every `active` deployment's missing worker
// created again, every `deploying` one with a deploy job, and nothing else. The restoring form of
// the one reconcile pass (reconcile-pass.ts), for a caller without a Reconciler at hand; the
// runtime runs it through its Reconciler at start-up and when the local agent host restarted.
import { DesiredIndex } from './desired-index.js';
import { reconcilePass, type PassCounts, type PassDeps } from './reconcile-pass.js';

export function reconcileWorkers(s: PassDeps): Promise<PassCounts> {
  return reconcilePass(s, new DesiredIndex(), { restore: true });
}
