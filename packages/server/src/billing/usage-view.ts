// The usage API's verbs: what a deployment spent this period, and a byok owner's spend cap.
import { AppError } from '../platform/errors/app-error.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from '../deployments/index.js';
import { forgetUncapped, openPeriod } from './allowance.js';
import { nanoToUsd, usdToNano } from './pricing.js';
import type { UsageGrouping } from '../platform/store/usage.js';

type UsageDeps = Pick<
  Services,
  'jobs' | 'callbackSequences' | 'deployments' | 'usage' | 'billing' | 'now' | 'log' | 'catalog'
>;

/** The period that ends at `end` began a calendar month earlier (not before the slot existed). */
function periodStart(end: string, createdAt: string): string {
  const d = new Date(end);
  d.setUTCMonth(d.getUTCMonth() - 1);
  return new Date(Math.max(d.getTime(), Date.parse(createdAt))).toISOString();
}

export async function getUsage(s: UsageDeps, caller: Caller, id: string, groupBy?: UsageGrouping) {
  const d = await loadOwned(s, caller, id);
  const key = await openPeriod(s, d);
  await s.billing.settles.before(key, true);
  const p = await s.usage.period(key);
  const days = await s.usage.daily(key);
  const groups = groupBy ? await s.usage.grouped(key, groupBy) : undefined;
  const allowance = p?.allowanceNano ?? null;
  const used = p?.usedNano ?? 0;
  const sum = (f: (x: (typeof days)[number]) => number) => days.reduce((a, x) => a + f(x), 0);
  return {
    deploymentId: d.id,
    apiMode: d.apiMode,
    period: { start: periodStart(d.currentPeriodEnd, d.createdAt), end: d.currentPeriodEnd },
    allowanceUsd: allowance === null ? null : nanoToUsd(allowance),
    usedUsd: nanoToUsd(used),
    remainingUsd: allowance === null ? null : nanoToUsd(Math.max(0, allowance - used - (p?.reservedNano ?? 0))),
    replies: sum((x) => x.replies),
    promptTokens: sum((x) => x.promptTokens),
    completionTokens: sum((x) => x.completionTokens),
    daily: days.map((x) => ({
      date: x.day,
      replies: x.replies,
      promptTokens: x.promptTokens,
      completionTokens: x.completionTokens,
      costUsd: nanoToUsd(x.costNano),
    })),
    ...(groupBy && groups
      ? {
          groupBy,
          groups: groups.map(({ costNano, ...g }) => ({ ...g, costUsd: nanoToUsd(costNano) })),
        }
      : {}),
  };
}

/** A byok owner caps what their own key may spend per period; the current period follows at once. */
export async function setSpendCap(
  s: UsageDeps,
  caller: Caller,
  id: string,
  input: { monthlySpendCapUsd: number | null },
) {
  const d = await loadOwned(s, caller, id);
  if (d.apiMode !== 'byok') {
    throw new AppError(
      'INVALID_INPUT',
      `A ${d.apiMode} assistant's monthly credit is set by the operator; a spend cap applies to byok assistants, which use their own key.`,
    );
  }
  const cap = input.monthlySpendCapUsd;
  if (cap !== null && d.modelId && !s.catalog.provider(d.modelProvider)?.pricing.has(d.modelId)) {
    throw new AppError(
      'INVALID_INPUT',
      `The server's model catalog has no price for "${d.modelId}" of "${d.modelProvider}", so a spend cap could not be metered.`,
    );
  }
  const capNano = cap === null ? null : usdToNano(cap);
  await s.usage.setCap(d.id, capNano, s.now());
  const key = await openPeriod(s, d);
  await s.usage.setAllowance(key, capNano);
  forgetUncapped(s, key);
  return { monthlySpendCapUsd: cap };
}
