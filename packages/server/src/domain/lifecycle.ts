// The one state machine of a deployment: user operations and system events alike. Pure, so every
// state × event pair is unit-tested (test/lifecycle.test.ts); the services and jobs ask it what
// the next status is instead of writing statuses of their own. See docs/decisions/0011.
import type { DeploymentStatus, Desired as StoredDesire, Observed, PaymentStatus } from './deployment.js';
import { transition, type Operation } from './transitions.js';

export type { Observed };

/** What the user last asked for. A deleted deployment is a tombstone until its worker is gone. */
export const DESIRED = ['running', 'stopped', 'deleted'] as const;
export type Desired = StoredDesire | 'deleted';

export type SystemEvent =
  | { kind: 'deploy_succeeded' }
  | { kind: 'deploy_failed'; reason: string }
  | { kind: 'deadline_passed'; reason: string }
  | { kind: 'subscription_canceled' }
  | { kind: 'subscription_past_due' }
  /** The worker died or disappeared; `recoverable` says whether starting it again can help. */
  | { kind: 'worker_vanished'; recoverable: boolean; reason: string }
  | { kind: 'host_restarted' };

export type SystemEventKind = SystemEvent['kind'];
export const SYSTEM_EVENTS: readonly SystemEventKind[] = [
  'deploy_succeeded',
  'deploy_failed',
  'deadline_passed',
  'subscription_canceled',
  'subscription_past_due',
  'worker_vanished',
  'host_restarted',
];

export interface LifecycleState {
  status: DeploymentStatus;
  isPrebuy: boolean;
  paymentStatus: PaymentStatus;
  /** Whether the slot holds what a worker needs (bot token, model); only redeploy asks. */
  configured: boolean;
  /** The operator's suspension reason: while set, nothing the owner does starts a worker. */
  suspendedReason?: string | null;
}

/** A change to write: the new status and message, and whether older in-flight work is superseded. */
export interface Change {
  status: DeploymentStatus;
  statusMessage: string | null;
  desired: Desired;
  /**
   * What is now known of this generation's worker, when the event says it: `ready` on a deploy that
   * succeeded, `failed` on one that failed, `absent` on a new generation (no worker of it yet) or a
   * vanished worker. Undefined keeps what was observed.
   */
  observed?: Observed;
  /** A new generation: deploys, health checks and callbacks of the old one become no-ops. */
  bumpGeneration: boolean;
  /** The worker URL is no longer valid (the worker is being removed or replaced). */
  clearWorkerUrl: boolean;
  /** Sets (a reason) or lifts (null) the operator's suspension; undefined keeps it. */
  suspendedReason?: string | null;
}

export type Decision =
  | { ok: true; change: Change }
  /** The event does not apply in this state (stale or irrelevant): write nothing. */
  | { ok: true; change: null }
  | { ok: false; reason: string };

/** The desire a status stands for: a worker should exist exactly when this is `running`. */
export function desiredOf(status: DeploymentStatus): Exclude<Desired, 'deleted'> {
  return status === 'deploying' || status === 'active' ? 'running' : 'stopped';
}

/** The API's status, derived from desired and observed state (see the decision record's table). */
export function deriveStatus(
  desired: Desired,
  observed: Observed,
  prior: DeploymentStatus,
): DeploymentStatus | 'deleted' {
  if (desired === 'deleted') return 'deleted';
  if (desired === 'stopped') return prior === 'purchased' || prior === 'failed' ? prior : 'stopped';
  if (observed === 'ready') return 'active';
  if (observed === 'failed') return 'failed';
  return 'deploying';
}

/** Whether the backend may keep a worker for a deployment in this state. */
export function wantsWorker(desired: Desired): boolean {
  return desired === 'running';
}

export const MESSAGES = {
  stopped: 'Stopped; redeploy to start it again.',
  canceled: 'Stopped: the subscription was canceled.',
  deleted: 'Deleted; its worker and subscription are being cleaned up.',
  hostRestarted: 'The worker host restarted; starting the assistant again.',
} as const;

const change = (c: Partial<Change> & Pick<Change, 'status' | 'statusMessage'>): Decision => ({
  ok: true,
  change: {
    desired: desiredOf(c.status),
    bumpGeneration: false,
    clearWorkerUrl: false,
    ...c,
    observed: c.observed ?? (c.bumpGeneration ? 'absent' : undefined),
  },
});
const nothing: Decision = { ok: true, change: null };

export const suspendedMessage = (reason: string) => `Suspended by the operator: ${reason}`;

/** A user operation: the spec's "States and transitions" table. */
export function decideOperation(op: Operation, s: LifecycleState): Decision {
  if (s.suspendedReason) {
    // Suspended: stopped already, and only the operator's resume lifts it.
    if (op === 'stop')
      return change({
        status: 'stopped',
        statusMessage: suspendedMessage(s.suspendedReason),
        bumpGeneration: true,
        clearWorkerUrl: true,
      });
    if (op !== 'delete')
      return {
        ok: false,
        reason: `${suspendedMessage(s.suspendedReason)}. It stays stopped, and ${op} is refused, until the operator resumes it.`,
      };
  }
  const res = transition(op, s);
  if (!res.ok) return res;
  switch (op) {
    case 'activate':
    case 'redeploy':
      return change({ status: 'deploying', statusMessage: null, bumpGeneration: true, clearWorkerUrl: true });
    case 'stop':
      return change({ status: 'stopped', statusMessage: MESSAGES.stopped, bumpGeneration: true, clearWorkerUrl: true });
    case 'delete':
      return change({
        status: s.status,
        statusMessage: MESSAGES.deleted,
        desired: 'deleted',
        bumpGeneration: true,
        clearWorkerUrl: true,
      });
    case 'update':
      return nothing;
  }
}

/** The operator's hand (admin deployments suspend|resume): a desired state the reconciler enforces. */
export function decideOperatorAction(
  action: { kind: 'suspend'; reason: string } | { kind: 'resume' },
  s: LifecycleState,
): Decision {
  if (action.kind === 'suspend')
    return change({
      status: 'stopped',
      statusMessage: suspendedMessage(action.reason),
      suspendedReason: action.reason,
      bumpGeneration: true,
      clearWorkerUrl: true,
    });
  if (!s.suspendedReason) return { ok: false, reason: 'The deployment is not suspended.' };
  // Lifted: it runs again when it can (configured and paid), as a redeploy would start it.
  const runnable = s.configured && (s.paymentStatus === 'paid' || s.paymentStatus === 'past_due') && !s.isPrebuy;
  return runnable
    ? change({
        status: 'deploying',
        statusMessage: null,
        suspendedReason: null,
        bumpGeneration: true,
        clearWorkerUrl: true,
      })
    : change({
        status: s.isPrebuy ? 'purchased' : 'stopped',
        statusMessage: s.isPrebuy ? null : MESSAGES.stopped,
        suspendedReason: null,
        bumpGeneration: true,
      });
}

/** A system event. Events that do not fit the current state are stale and change nothing. */
export function decideEvent(e: SystemEvent, s: Pick<LifecycleState, 'status'>): Decision {
  switch (e.kind) {
    case 'deploy_succeeded':
      return s.status === 'deploying' ? change({ status: 'active', statusMessage: null, observed: 'ready' }) : nothing;
    case 'deploy_failed':
    case 'deadline_passed':
      // A failed deploy gives up the worker too: the reconciler removes it (it no longer wants one).
      return s.status === 'deploying'
        ? change({
            status: 'failed',
            statusMessage: `Deploy failed: ${e.reason}`,
            observed: 'failed',
            clearWorkerUrl: true,
          })
        : nothing;
    case 'subscription_canceled':
      return s.status === 'active' || s.status === 'deploying' || s.status === 'failed'
        ? change({ status: 'stopped', statusMessage: MESSAGES.canceled, bumpGeneration: true, clearWorkerUrl: true })
        : nothing;
    case 'subscription_past_due':
      // The spec lets a past-due slot run and redeploy; only a cancellation stops it.
      return nothing;
    case 'worker_vanished':
      if (s.status !== 'active' && s.status !== 'deploying') return nothing;
      return e.recoverable
        ? change({
            status: 'deploying',
            statusMessage: `The worker stopped (${e.reason}); starting it again.`,
            bumpGeneration: true,
            clearWorkerUrl: true,
          })
        : change({
            status: 'failed',
            statusMessage: `The worker stopped: ${e.reason}`,
            observed: 'absent',
            clearWorkerUrl: true,
          });
    case 'host_restarted':
      return s.status === 'active'
        ? change({
            status: 'deploying',
            statusMessage: MESSAGES.hostRestarted,
            bumpGeneration: true,
            clearWorkerUrl: true,
          })
        : nothing;
  }
}
