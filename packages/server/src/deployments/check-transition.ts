import { AppError } from '../platform/errors/app-error.js';
import type { Operation } from '../domain/transitions.js';
import { decideOperation, type Change, type LifecycleState } from '../domain/lifecycle.js';
import type { Deployment } from '../domain/deployment.js';

export function isConfigured(d: Deployment): boolean {
  return Boolean(d.botTokenEnc && d.modelId && d.modelProvider);
}

export function lifecycleStateOf(d: Deployment): LifecycleState {
  return {
    status: d.status,
    isPrebuy: d.isPrebuy,
    paymentStatus: d.paymentStatus,
    configured: isConfigured(d),
    suspendedReason: d.suspendedReason,
  };
}

/** The state machine's answer to a user operation; a refusal is the spec's 409 INVALID_STATE. */
export function checkTransition(op: Operation, d: Deployment): Change | null {
  const res = decideOperation(op, lifecycleStateOf(d));
  if (!res.ok) throw new AppError('INVALID_STATE', res.reason, { status: d.status, paymentStatus: d.paymentStatus });
  return res.change;
}
