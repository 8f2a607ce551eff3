// Typed in-process events that ops/ (metrics, alerts) listens to, so no verb carries metrics or
// alert code: a verb says what happened, once, and whoever cares subscribes. Emitting with no
// listener costs one map lookup; a listener that throws never reaches the verb that emitted.
import type { JobKind } from './store/jobs.js';

export interface OpsEventMap {
  /** A model call or chat reply was booked (billing/allowance.ts). */
  'usage.settled': { mode: string; model: string; promptTokens: number; completionTokens: number; costNano: number };
  /** A job run ended (jobs/runner.ts); `failed` is final (dead-lettered). */
  'job.finished': {
    kind: JobKind;
    outcome: 'done' | 'retry' | 'failed' | 'deferred';
    deploymentId: string | null;
    error?: string;
  };
  /** An active deployment's model changed in place (deployments/change-model.ts): cached copies are stale. */
  'deployment.model_changed': { deploymentId: string };
  /** A deployment became `failed` (deployments/deploy-deployment.ts). */
  'deployment.failed': { deploymentId: string; reason: string };
  /** An active deployment's worker runs but is not well (deployments/health-watch.ts); `reason` is its statusMessage. */
  'deployment.unhealthy': { deploymentId: string; reason: string };
  /** The local agent host process exited and is being restarted. */
  'agent_host.restarted': { exitCode: number | null; restartsInWindow: number };
  /** A model provider answered an error through the gateway (status, or 0 when unreachable). */
  'provider.error': { provider: string; status: number };
  /** The managed provider's remaining credit (USD) is below the operator's threshold (ops/credit-watch.ts). */
  'provider.low_credit': { provider: string; remainingUsd: number; thresholdUsd: number };
  /** A backup did not complete. */
  'backup.failed': { reason: string };
}

export type OpsEventName = keyof OpsEventMap;
type Listener<K extends OpsEventName> = (event: OpsEventMap[K]) => void;

export class OpsEvents {
  private readonly listeners = new Map<OpsEventName, Array<Listener<never>>>();

  constructor(private readonly onListenerError: (err: Error, name: OpsEventName) => void = () => {}) {}

  on<K extends OpsEventName>(name: K, listener: Listener<K>): () => void {
    const list = (this.listeners.get(name) ?? []) as Array<Listener<K>>;
    list.push(listener);
    this.listeners.set(name, list as Array<Listener<never>>);
    return () => {
      const i = list.indexOf(listener);
      if (i >= 0) list.splice(i, 1);
    };
  }

  emit<K extends OpsEventName>(name: K, event: OpsEventMap[K]): void {
    const list = this.listeners.get(name) as Array<Listener<K>> | undefined;
    if (!list) return;
    for (const l of list) {
      try {
        l(event);
      } catch (err) {
        this.onListenerError(err as Error, name);
      }
    }
  }
}
