// The plans a buyer picks from: each mode's price (the payment provider's, so what is shown is what
// is charged) and its monthly model allowance.
import type { ApiMode } from '../domain/deployment.js';
import type { Services } from '../services.js';

const ABOUT: Record<ApiMode, string> = {
  byok: 'Your model provider and key; you pay the provider for the model.',
  managed: 'Models through Berth, with monthly credits included.',
  unlimited: 'Managed, with a much larger monthly allowance.',
};

export async function listPlans(s: Pick<Services, 'payments' | 'billing'>) {
  const prices = await s.payments.planPrices();
  return (['byok', 'managed', 'unlimited'] as const).map((mode) => ({
    mode,
    description: ABOUT[mode],
    price: prices[mode],
    allowanceUsd: mode === 'byok' ? null : s.billing.monthlyCreditsUsd[mode],
  }));
}
