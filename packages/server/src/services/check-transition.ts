import { AppError } from '../errors/app-error.js';
import { transition, type Operation } from '../domain/transitions.js';
import type { Deployment } from '../domain/deployment.js';

export function isConfigured(d: Deployment): boolean {
  return Boolean(d.botTokenEnc && d.modelId && d.modelProvider);
}

export function checkTransition(op: Operation, d: Deployment) {
  const res = transition(op, {
    status: d.status,
    isPrebuy: d.isPrebuy,
    paymentStatus: d.paymentStatus,
    configured: isConfigured(d),
  });
  if (!res.ok) throw new AppError('INVALID_STATE', res.reason, { status: d.status, paymentStatus: d.paymentStatus });
  return res.next;
}
