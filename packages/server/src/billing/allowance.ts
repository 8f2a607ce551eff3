// Allowances: reserve before a model call, settle after. Managed and unlimited deployments get the
// operator's monthly credit; a byok deployment has the cap its owner set (none by default). The
// period is the deployment's billing period: a paid invoice moves currentPeriodEnd, and with it
// every call lands on a fresh row with a fresh allowance.
import type { Metered } from './metered.js';
import { AppError } from '../platform/errors/app-error.js';
import type { PeriodKey, UsageEntry } from '../platform/store/usage.js';
import type { Services } from '../services.js';
import { nanoToUsd, usdToNano } from './pricing.js';
import { enqueueCallback } from '../callbacks/index.js';

export type MeterDeps = Pick<Services, 'usage' | 'billing' | 'jobs' | 'callbackSequences' | 'now' | 'log'>;
export type { Metered };

export interface Reservation {
  key: PeriodKey;
  amountNano: number;
  /** Called once the reservation is settled (a capped byok chat's turn, meter-chat.ts). */
  done?: () => void;
  /** The deployment's mode, for the ops events of the settlement (ops/metrics.ts). */
  mode: Metered['apiMode'];
}

export async function allowanceNano(s: Pick<Services, 'usage' | 'billing'>, d: Metered): Promise<number | null> {
  if (d.apiMode === 'byok') return s.usage.cap(d.id);
  return usdToNano(
    d.apiMode === 'unlimited' ? s.billing.monthlyCreditsUsd.unlimited : s.billing.monthlyCreditsUsd.managed,
  );
}

const cacheKeyOf = (key: PeriodKey) => `${key.deploymentId}|${key.periodEnd}`;

/** The deployment's current period, created with its allowance on first use. */
export async function openPeriod(s: MeterDeps, d: Metered): Promise<PeriodKey> {
  const key = { deploymentId: d.id, periodEnd: d.currentPeriodEnd };
  const cacheKey = periodCacheKey(d);
  if (!s.billing.periods.get(cacheKey)) {
    await s.usage.ensurePeriod(key, await allowanceNano(s, d));
    s.billing.periods.set(cacheKey, true);
  }
  return key;
}

/** After a cap is set here: this replica's proxy checks it from the next chat on. */
export function forgetUncapped(s: Pick<MeterDeps, 'billing'>, key: PeriodKey) {
  s.billing.uncapped.delete(cacheKeyOf(key));
  s.billing.uncapped.capsSet++;
}

/** Holds `amountNano` of the allowance or throws CREDITS_EXHAUSTED. */
export async function reserve(s: MeterDeps, d: Metered, amountNano: number): Promise<Reservation> {
  const key = await openPeriod(s, d);
  // A byok owner without a cap (the default): nothing to hold against, so a point read instead of a
  // write on every model call. A cap set meanwhile counts from the next call on (the period row is
  // read each time, so every replica sees it at once).
  if (d.apiMode === 'byok' && (await s.usage.period(key))?.allowanceNano === null)
    return { key, amountNano: 0, mode: d.apiMode };
  await s.billing.settles.before(key);
  // Asked before the UPDATE, not only after: on PostgreSQL a settlement written meanwhile (another
  // connection) may commit after the UPDATE read the figures and before its answer arrives, and
  // then nothing of the period is queued any more although the refusal counted its hold.
  const unsettled = s.billing.settles.has(key);
  if (await s.usage.reserve(key, amountNano)) return { key, amountNano, mode: d.apiMode };
  // Settlements still queued may hold more than they cost: refuse only on exact figures.
  if (unsettled || s.billing.settles.has(key)) {
    await s.billing.settles.before(key, true);
    if (await s.usage.reserve(key, amountNano)) return { key, amountNano, mode: d.apiMode };
  }
  throw await exhausted(s, d, key);
}

/** Queues the settlement (settle-queue.ts writes it within milliseconds, batched with others). */
export async function settle(
  s: MeterDeps & Pick<Services, 'events'>,
  r: Reservation,
  entry: UsageEntry | undefined,
): Promise<void> {
  s.billing.settles.add({ key: r.key, reservedNano: r.amountNano, entry, at: s.now() });
  if (entry)
    s.events.emit('usage.settled', {
      mode: r.mode,
      model: entry.model,
      promptTokens: entry.promptTokens,
      completionTokens: entry.completionTokens,
      costNano: entry.costNano,
    });
}

/**
 * This replica knows the deployment's current period is open and has no cap (both caches hit):
 * assertCredit has nothing to check. Synchronous, so the chat proxy skips its promises then.
 */
export function knownUncapped(s: Pick<MeterDeps, 'billing'>, d: Metered): boolean {
  const cacheKey = periodCacheKey(d);
  return s.billing.periods.get(cacheKey) === true && s.billing.uncapped.get(cacheKey) === true;
}

/**
 * The period caches' key of a meter's current period, made once per meter object: a chat's meter is
 * built once per cached deployment (resolve-chat-target.ts), and a Map lookup with a freshly
 * concatenated key flattens and hashes it each time (~0.4 µs), one with the same string does not.
 * Checked against the meter's id and period end, so a meter changed in place gets its own key.
 */
const periodKeys = new WeakMap<Metered, { id: string; periodEnd: string; key: string }>();
function periodCacheKey(d: Metered): string {
  const k = periodKeys.get(d);
  if (k !== undefined && k.id === d.id && k.periodEnd === d.currentPeriodEnd) return k.key;
  const key = cacheKeyOf({ deploymentId: d.id, periodEnd: d.currentPeriodEnd });
  periodKeys.set(d, { id: d.id, periodEnd: d.currentPeriodEnd, key });
  return key;
}

/** For the chat proxy: refuse before reaching the worker when nothing of the allowance is left. */
export async function assertCredit(s: MeterDeps, d: Metered, amountNano: number): Promise<void> {
  const key = await openPeriod(s, d);
  // One read a second per uncapped period, not one per chat: the gateway checks every model call.
  if (s.billing.uncapped.get(periodCacheKey(d))) return;
  const caps = s.billing.uncapped.capsSet;
  const unsettled = s.billing.settles.has(key);
  let p = await s.usage.period(key);
  if (p?.allowanceNano === null && s.billing.uncapped.capsSet === caps) s.billing.uncapped.set(periodCacheKey(d), true);
  if (!p || p.allowanceNano === null) return;
  // Exact figures only when settlements of this period are still queued (they may book less).
  if (unsettled || s.billing.settles.has(key)) {
    await s.billing.settles.before(key, true);
    p = (await s.usage.period(key)) ?? p;
  }
  if (p.allowanceNano !== null && p.usedNano + p.reservedNano + amountNano > p.allowanceNano)
    throw await exhausted(s, d, key);
}

function renewalText(periodEnd: string, now: Date): { text: string; seconds: number } {
  const seconds = Math.max(1, Math.ceil((Date.parse(periodEnd) - now.getTime()) / 1000));
  if (!(Date.parse(periodEnd) > now.getTime())) return { text: 'when the subscription renews', seconds: 3600 };
  return { text: `on ${periodEnd} (when the billing period renews)`, seconds };
}

async function exhausted(s: MeterDeps, d: Metered, key: PeriodKey): Promise<AppError> {
  const renew = renewalText(key.periodEnd, s.now());
  const what =
    d.apiMode === 'byok'
      ? 'The spend cap you set for this assistant is reached'
      : "This assistant's monthly model credits are used up";
  const after =
    d.apiMode === 'byok'
      ? `It resets ${renew.text}, or raise it with: berth assistants limits ${d.id} --cap-usd <amount>.`
      : `They renew ${renew.text}.`;
  await notifyOwner(s, d, key).catch((err) =>
    s.log.warn({ deploymentId: d.id, err: (err as Error).message }, 'credits notice not queued'),
  );
  return new AppError(
    'CREDITS_EXHAUSTED',
    `${what}. ${after}`,
    { renewsAt: key.periodEnd },
    { 'retry-after': String(renew.seconds), 'x-should-retry': 'false' },
  );
}

/** Once per period, the owner's callback hears that the allowance ran out. */
async function notifyOwner(s: MeterDeps, d: Metered, key: PeriodKey) {
  if (!d.userCallbackUrl) return;
  if (!(await s.usage.claimExhaustedNotice(key))) return;
  const p = await s.usage.period(key);
  const data = {
    deploymentId: d.id,
    apiMode: d.apiMode,
    periodEnd: key.periodEnd,
    allowanceUsd: p?.allowanceNano === null || !p ? null : nanoToUsd(p.allowanceNano),
    usedUsd: nanoToUsd(p?.usedNano ?? 0),
  };
  await enqueueCallback(
    s,
    { ...d, userCallbackUrl: d.userCallbackUrl },
    {
      type: 'deployment.credits_exhausted',
      timestamp: s.now().toISOString(),
      data,
    },
  );
}
