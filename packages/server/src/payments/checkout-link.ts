// The checkout link of an unpaid slot, again: the purchase answer shows it once, but a person may
// buy on one device and pay on another (`berth assistants pay`, the dashboard's Pay button).
import { AppError } from '../platform/errors/app-error.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from '../deployments/index.js';

export async function checkoutLink(s: Pick<Services, 'deployments' | 'payments'>, caller: Caller, id: string) {
  const d = await loadOwned(s, caller, id);
  if (d.paymentStatus !== 'pending') {
    throw new AppError(
      'INVALID_STATE',
      `This slot is already paid (paymentStatus "${d.paymentStatus}"); there is nothing to pay. Activate it: berth assistants activate ${d.id}.`,
    );
  }
  const checkoutUrl = await s.payments.checkoutUrl(d.checkoutId);
  if (!checkoutUrl) {
    throw new AppError(
      'INVALID_STATE',
      'The checkout of this slot has expired. Delete this slot and buy a new one: berth assistants buy.',
    );
  }
  return { deploymentId: d.id, apiMode: d.apiMode, checkoutUrl };
}
