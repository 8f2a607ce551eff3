// The rules of "States and transitions" as one pure function, so they can be tested exhaustively.
import type { DeploymentStatus, PaymentStatus } from './deployment.js';

export type Operation = 'activate' | 'update' | 'redeploy' | 'stop' | 'delete';

export interface TransitionInput {
  status: DeploymentStatus;
  isPrebuy: boolean;
  paymentStatus: PaymentStatus;
  /** Whether the slot holds what a worker needs (bot token, model); only redeploy asks. */
  configured: boolean;
}

export type TransitionResult = { ok: true; next: DeploymentStatus | 'removed' } | { ok: false; reason: string };

const ALLOWED: Record<Exclude<Operation, 'stop' | 'delete'>, DeploymentStatus[]> = {
  activate: ['purchased'],
  update: ['purchased', 'stopped', 'failed'],
  redeploy: ['active', 'failed', 'stopped'],
};

export function transition(op: Operation, d: TransitionInput): TransitionResult {
  switch (op) {
    case 'stop':
      return { ok: true, next: 'stopped' };
    case 'delete':
      return { ok: true, next: 'removed' };
    case 'update':
      return ALLOWED.update.includes(d.status)
        ? { ok: true, next: d.status }
        : {
            ok: false,
            reason: `Update is allowed only when the deployment is purchased, stopped or failed; it is ${d.status}.`,
          };
    case 'activate':
      if (!ALLOWED.activate.includes(d.status) || !d.isPrebuy) {
        return {
          ok: false,
          reason: `Activate is allowed only for a purchased slot that was not activated yet; this deployment is ${d.status}${d.isPrebuy ? '' : ' and already activated'}. Use redeploy to start it again.`,
        };
      }
      if (d.paymentStatus !== 'paid') {
        return {
          ok: false,
          reason: 'Checkout is not completed for this slot; open its checkoutUrl and pay, then activate.',
        };
      }
      return { ok: true, next: 'deploying' };
    case 'redeploy':
      if (!ALLOWED.redeploy.includes(d.status)) {
        return {
          ok: false,
          reason: `Redeploy is allowed only when the deployment is active, failed or stopped; it is ${d.status}.`,
        };
      }
      if (d.paymentStatus !== 'paid' && d.paymentStatus !== 'past_due') {
        return {
          ok: false,
          reason: `The subscription of this slot is ${d.paymentStatus}; a deployment needs a paid slot.`,
        };
      }
      if (!d.configured) {
        return { ok: false, reason: 'This slot has no bot token or model yet; set them with PATCH, then redeploy.' };
      }
      return { ok: true, next: 'deploying' };
  }
}
