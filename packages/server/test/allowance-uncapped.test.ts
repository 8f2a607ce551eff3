// The chat proxy's early credit check remembers, for a second, a period read without an allowance
// (billing/allowance.ts, Billing.uncapped): one read a second per byok assistant without a cap, not
// one per chat. A cap set through this replica is checked from the very next chat on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertCredit, forgetUncapped, knownUncapped, type MeterDeps } from '../src/billing/allowance.js';
import { TtlCache } from '../src/platform/cache/ttl-cache.js';
import { UncappedPeriods } from '../src/billing/uncapped-periods.js';
import type { Metered } from '../src/billing/metered.js';

/** The billing deps the proxy's credit check reads: the given period store, fresh caches. */
const meterDeps = (usage: unknown, uncapped = new UncappedPeriods(1_000)) =>
  ({
    usage,
    billing: { periods: new TtlCache<string, true>(30_000), uncapped, settles: { has: () => false } },
    now: () => new Date(),
    log: { warn() {} },
  }) as unknown as MeterDeps;

test('an uncapped period is read once a second by the proxy, and a cap set here holds from the next chat', async () => {
  let allowanceNano: number | null = null;
  let reads = 0;
  const usage = {
    period: async () => {
      reads++;
      return { allowanceNano, usedNano: 5_000_000, reservedNano: 0 };
    },
    ensurePeriod: async () => {},
    cap: async () => null,
    claimExhaustedNotice: async () => false,
  };
  let clock = 1_000_000;
  const s = {
    usage,
    billing: {
      periods: new TtlCache<string, true>(30_000),
      uncapped: new UncappedPeriods(1_000, 100, () => clock),
      settles: { has: () => false },
    },
    now: () => new Date(clock),
    log: { warn() {} },
  } as unknown as MeterDeps;
  const d = { id: 'd-1', apiMode: 'byok', currentPeriodEnd: '2030-01-01T00:00:00.000Z' } as Metered;
  for (let i = 0; i < 5; i++) await assertCredit(s, d, 1_000);
  assert.equal(reads, 1, 'five chats, one read');
  clock += 1_001;
  await assertCredit(s, d, 1_000);
  assert.equal(reads, 2, 'read again once the second is over');
  // The owner sets a cap below what is spent (usage-view.ts forgets the remembered read).
  allowanceNano = 1_000_000;
  forgetUncapped(s, { deploymentId: d.id, periodEnd: d.currentPeriodEnd });
  await assert.rejects(assertCredit(s, d, 1_000), { code: 'CREDITS_EXHAUSTED' });
});

test('a read that began before a cap was set here is not remembered as uncapped', async () => {
  let allowanceNano: number | null = null;
  let release: () => void = () => {};
  let slow = false;
  const usage = {
    period: async () => {
      // The read's answer is what the row held when it began.
      const seen = allowanceNano;
      if (slow) await new Promise<void>((r) => (release = r));
      return { allowanceNano: seen, usedNano: 5_000_000, reservedNano: 0 };
    },
    ensurePeriod: async () => {},
    cap: async () => null,
    claimExhaustedNotice: async () => false,
  };
  const s = meterDeps(usage);
  const d = { id: 'd-2', apiMode: 'byok', currentPeriodEnd: '2030-01-01T00:00:00.000Z' } as Metered;
  slow = true;
  const chat = assertCredit(s, d, 1_000);
  await new Promise((r) => setImmediate(r));
  // The owner sets a cap while that chat's read is in flight.
  allowanceNano = 1_000_000;
  forgetUncapped(s, { deploymentId: d.id, periodEnd: d.currentPeriodEnd });
  release();
  await chat;
  slow = false;
  await assert.rejects(assertCredit(s, d, 1_000), { code: 'CREDITS_EXHAUSTED' }, 'the next chat sees the cap');
});

test("a remembered uncapped period is the meter's own: another deployment's, a later period's or a moved meter's is checked", async () => {
  const caps: Record<string, number | null> = { 'd-open': null, 'd-capped': 1_000_000 };
  const s = meterDeps(
    {
      period: async (key: { deploymentId: string }) => ({
        allowanceNano: caps[key.deploymentId],
        usedNano: 5_000_000,
        reservedNano: 0,
      }),
      ensurePeriod: async () => {},
      cap: async (id: string) => caps[id],
      claimExhaustedNotice: async () => false,
    },
    new UncappedPeriods(60_000),
  );
  const open = { id: 'd-open', apiMode: 'byok', currentPeriodEnd: '2030-01-01T00:00:00.000Z' } as Metered;
  const capped = { ...open, id: 'd-capped' } as Metered;
  await assertCredit(s, open, 1_000);
  assert.equal(knownUncapped(s, open), true, 'the uncapped period is remembered');
  assert.equal(knownUncapped(s, capped), false, "another deployment's period is not");
  await assert.rejects(assertCredit(s, capped, 1_000), { code: 'CREDITS_EXHAUSTED' });
  const next = '2030-02-01T00:00:00.000Z';
  assert.equal(knownUncapped(s, { ...open, currentPeriodEnd: next }), false, 'nor the next period of the same one');
  // A meter object whose period moved in place (none does today) must not keep its old key.
  (open as { currentPeriodEnd: string }).currentPeriodEnd = next;
  assert.equal(knownUncapped(s, open), false, 'nor a meter whose period moved');
});
