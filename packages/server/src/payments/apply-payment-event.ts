// Applies one payment event, once. Events arrive out of order and twice: a cancellation is final
// (nothing after it makes the slot paid again), periods only move forward, and subscription
// updates older than the newest one applied are ignored. Stopping a running worker after a
// cancellation goes through the outbox, so a failing worker cannot lose it. A subscription whose
// slot was deleted is canceled (through the outbox as well), so a stale checkout link cannot bill.
import type { Deployment, PaymentStatus } from '../domain/deployment.js';
import type { PaymentEvent } from './events.js';
import type { DeploymentPatch } from '../platform/store/deployments.js';
import type { Repos } from '../platform/store/repos.js';
import { chatTargetKey, type Services } from '../services.js';

const iso = (unix: number) => new Date(unix * 1000).toISOString();
const later = (a: string, unix: number | undefined) => (unix !== undefined && iso(unix) > a ? iso(unix) : a);

/** What the buyer of a pending slot is told of a checkout whose money has not arrived. */
const UNSETTLED = {
  checkout_processing:
    'Payment is processing; the slot becomes paid when the payment provider confirms the money arrived.',
  checkout_failed:
    'Payment failed: the payment method was declined after checkout and nothing was charged. Delete this slot and purchase a new one to pay with another method.',
};

function patchFor(d: Deployment, e: PaymentEvent): DeploymentPatch | undefined {
  const canceled = d.paymentStatus === 'canceled';
  const fresh = d.paymentEventAt === null || e.createdAt >= d.paymentEventAt;
  const sub = d.paymentSubscriptionId || e.subscriptionId;
  switch (e.kind) {
    case 'checkout_completed':
      if (canceled) return d.paymentSubscriptionId ? undefined : { paymentSubscriptionId: e.subscriptionId };
      return {
        paymentStatus: 'paid',
        paymentSubscriptionId: sub,
        currentPeriodEnd: later(d.currentPeriodEnd, e.periodEnd),
        statusMessage: d.isPrebuy ? 'Paid; ready to activate.' : d.statusMessage,
      };
    case 'checkout_processing':
    case 'checkout_failed':
      if (d.paymentStatus !== 'pending') return undefined;
      return { paymentSubscriptionId: sub, statusMessage: UNSETTLED[e.kind] };
    case 'invoice_paid':
      if (canceled) return undefined;
      return {
        paymentStatus: 'paid',
        paymentSubscriptionId: sub,
        currentPeriodEnd: later(d.currentPeriodEnd, e.periodEnd),
      };
    case 'payment_failed':
      if (canceled || !fresh) return undefined;
      return { paymentStatus: 'past_due', paymentSubscriptionId: sub, paymentEventAt: e.createdAt };
    case 'subscription_updated': {
      if (canceled || !fresh) return undefined;
      const status: PaymentStatus =
        e.status === 'active' || e.status === 'trialing'
          ? 'paid'
          : e.status === 'past_due' || e.status === 'unpaid'
            ? 'past_due'
            : e.status === 'canceled' || e.status === 'incomplete_expired'
              ? 'canceled'
              : d.paymentStatus;
      return {
        paymentStatus: status,
        paymentSubscriptionId: sub,
        paymentEventAt: e.createdAt,
        currentPeriodEnd: e.periodEnd !== undefined ? iso(e.periodEnd) : d.currentPeriodEnd,
        canceledAt: e.canceledAt !== undefined ? iso(e.canceledAt) : null,
      };
    }
    case 'subscription_deleted':
      return {
        paymentStatus: 'canceled',
        paymentSubscriptionId: sub,
        canceledAt: iso(e.canceledAt ?? e.createdAt),
        paymentEventAt: Math.max(e.createdAt, d.paymentEventAt ?? 0),
      };
  }
}

export async function applyPaymentEvent(
  s: Pick<Services, 'cache' | 'transaction' | 'now'>,
  e: PaymentEvent,
): Promise<'applied' | 'duplicate' | 'unknown_deployment'> {
  for (let attempt = 0; ; attempt++) {
    const result = await s
      .transaction(async (r) => {
        if (!(await r.paymentEvents.record(e.eventId, e.kind, s.now().toISOString()))) return 'duplicate' as const;
        const repo = r.deployments;
        const d =
          (e.deploymentId && (await repo.findById(e.deploymentId))) ||
          (await repo.findBySubscription(e.subscriptionId));
        if (!d) {
          if ((await isOrphanOfOurs(r, e)) || (await isForDeletedSlot(r, e))) {
            await r.jobs.enqueue({
              kind: 'cancel_subscription',
              deploymentId: e.deploymentId,
              payload: { subscriptionId: e.subscriptionId },
            });
          }
          return 'unknown_deployment' as const;
        }
        const patch = patchFor(d, e);
        if (!patch) return 'applied' as const;
        const saved = await repo.update(d.id, d.generation, { ...patch, updatedAt: s.now().toISOString() });
        // Lost a race with another change: roll back (the event row too) and go again.
        if (!saved) throw new RetryEvent();
        if (
          saved.paymentStatus === 'canceled' &&
          d.paymentStatus !== 'canceled' &&
          ['active', 'deploying', 'failed'].includes(saved.status)
        ) {
          await r.jobs.enqueue({
            kind: 'stop',
            deploymentId: d.id,
            payload: { reason: 'Stopped: the subscription was canceled.' },
          });
        }
        s.cache.targets.delete(chatTargetKey(d));
        return 'applied' as const;
      })
      .catch((err) => {
        if (err instanceof RetryEvent && attempt < 5) return 'retry' as const;
        throw err;
      });
    if (result !== 'retry') return result;
  }
}

class RetryEvent extends Error {}

/**
 * A live subscription of a slot that no longer exists: it must be canceled or it bills forever. Only
 * subscriptions this server sold count (their metadata names a user of ours), so a Stripe account
 * shared with another installation never has that installation's subscriptions canceled.
 */
/** A late event about a slot that was deleted: its tombstone says the subscription is ours to end. */
async function isForDeletedSlot(r: Pick<Repos, 'tombstones'>, e: PaymentEvent): Promise<boolean> {
  if (!leavesItRunning(e) || !e.subscriptionId) return false;
  return (await r.tombstones.find({ deploymentId: e.deploymentId, subscriptionId: e.subscriptionId })) !== undefined;
}

/** Events that say the subscription is over need no cancellation. */
function leavesItRunning(e: PaymentEvent): boolean {
  if (e.kind === 'subscription_deleted') return false;
  return !(e.kind === 'subscription_updated' && (e.status === 'canceled' || e.status === 'incomplete_expired'));
}

async function isOrphanOfOurs(r: Pick<Repos, 'users'>, e: PaymentEvent): Promise<boolean> {
  if (!leavesItRunning(e)) return false;
  if (!e.deploymentId || !e.userId) return false;
  return (await r.users.findById(e.userId)) !== undefined;
}
