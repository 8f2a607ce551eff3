// Self-serve billing (DESIGN §9.3, issue 61): the owner of a paid slot opens where its billing is
// managed (Stripe's Customer Portal, or the local provider's page), and with local payments cancels
// there too. A local cancellation is applied as the provider's own event would be (applyPaymentEvent),
// so it reaches the deployment's status exactly as a Stripe webhook from the portal does.
import { randomUUID } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from '../deployments/index.js';
import { applyPaymentEvent } from './apply-payment-event.js';

type BillingDeps = Pick<Services, 'deployments' | 'payments' | 'cache' | 'transaction' | 'now' | 'log'>;

const noSubscription = () =>
  new AppError(
    'INVALID_STATE',
    'This slot has no subscription yet: pay at its checkout first (berth assistants pay <id>, or Pay on its page).',
  );

export async function openBillingPortal(s: BillingDeps, caller: Caller, id: string): Promise<{ url: string }> {
  const d = await loadOwned(s, caller, id);
  if (!d.paymentSubscriptionId || d.paymentStatus === 'pending') throw noSubscription();
  try {
    return { url: await s.payments.billingPortal({ subscriptionId: d.paymentSubscriptionId, deploymentId: d.id }) };
  } catch (err) {
    if (err instanceof AppError) throw err;
    s.log.warn({ deploymentId: d.id, err: (err as Error).message }, 'opening the billing portal failed');
    throw new AppError('BAD_GATEWAY', 'The payment provider did not open its billing portal; try again in a moment.');
  }
}

/** The local provider's "Cancel subscription": the slot is canceled and its assistant stops. */
export async function cancelLocalSubscription(s: BillingDeps, caller: Caller, id: string) {
  const d = await loadOwned(s, caller, id);
  if (s.payments.surface.kind !== 'local')
    throw new AppError(
      'INVALID_STATE',
      "This server bills through its payment provider: cancel in its billing portal (Manage billing on the slot's page).",
    );
  if (!d.paymentSubscriptionId || d.paymentStatus === 'pending') throw noSubscription();
  if (d.paymentStatus === 'canceled') return d;
  const now = Math.floor(s.now().getTime() / 1000);
  await applyPaymentEvent(s, {
    eventId: `local_evt_${randomUUID()}`,
    createdAt: now,
    subscriptionId: d.paymentSubscriptionId,
    deploymentId: d.id,
    userId: d.userId,
    kind: 'subscription_deleted',
    canceledAt: now,
  });
  return (await s.deployments.findById(d.id)) ?? d;
}
