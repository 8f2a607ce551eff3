// Batched settlements stay exact where an allowance decides: a reply that cost more than its hold
// is booked before the next reservation, a reply that cost less never refuses the next call, and
// closing the runtime writes what is queued.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './helpers/harness.js';
import { purchase } from './helpers/api.js';
import { assertCredit, reserve, settle } from '../src/billing/allowance.js';
import { SettleQueue } from '../src/billing/settle-queue.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => h.close());

const entry = (costNano: number) => ({
  source: 'gateway' as const,
  model: 'm',
  promptTokens: 1,
  completionTokens: 1,
  costNano,
});

/** How many replies the ledger holds for the deployment. */
async function bookedReplies(deploymentId: string): Promise<number> {
  const n = await h.runtime.store.db
    .selectFrom('usage_records')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('deployment_id', '=', deploymentId)
    .executeTakeFirstOrThrow();
  return Number(n.n);
}

async function metered(allowanceNano: number) {
  const { deploymentId } = await purchase(h, await h.key(), 'byok');
  const d = (await h.runtime.services.deployments.findById(deploymentId))!;
  await h.runtime.services.usage.ensurePeriod({ deploymentId, periodEnd: d.currentPeriodEnd }, allowanceNano);
  return d;
}

test('a queued reply that cost more than it held is booked before the next reservation', async () => {
  const s = h.runtime.services;
  const d = await metered(10_000);
  const r = await reserve(s, d, 1_000);
  await settle(s, r, entry(9_500));
  // Straight away, before the queue's timer: 9 500 used + 1 000 would pass 10 000.
  const refused = await reserve(s, d, 1_000).catch((e) => e);
  assert.equal(refused.code, 'CREDITS_EXHAUSTED');
  const p = await s.usage.period(r.key);
  assert.deepEqual(p, { allowanceNano: 10_000, reservedNano: 0, usedNano: 9_500 });
});

test('a queued reply that cost less than it held does not refuse the next call', async () => {
  const s = h.runtime.services;
  const d = await metered(3_000);
  const r = await reserve(s, d, 2_000);
  await settle(s, r, entry(100));
  // The store still counts the 2 000 hold until the queue is written: the retry writes it first.
  const next = await reserve(s, d, 2_000);
  assert.equal(next.amountNano, 2_000);
  await settle(s, next, entry(100));
  await s.billing.settles.flush();
  const p = await s.usage.period(r.key);
  assert.deepEqual(p, { allowanceNano: 3_000, reservedNano: 0, usedNano: 200 });
  const rows = await h.runtime.store.db
    .selectFrom('usage_records')
    .select('cost_nano')
    .where('deployment_id', '=', d.id)
    .execute();
  assert.deepEqual(
    rows.map((x) => Number(x.cost_nano)),
    [100, 100],
  );
});

/**
 * A 2 000 hold settled at 100 and queued, and the queue's write made to land right after the first
 * call of `method` read the store, before its answer is looked at: on PostgreSQL the queue writes
 * on another connection, so a check can see the figures from before the write (the hold still
 * counted) and answer after it committed, when nothing of the period is queued any more.
 */
async function writeLandsDuring(method: 'reserve' | 'period') {
  // A queue whose timer never fires within the test: on a slow machine the usual 5 ms could write
  // the batch before the check, and the moment would not be the one this stands for.
  const all = h.runtime.services;
  const s = { ...all, billing: { ...all.billing, settles: new SettleQueue(all.usage, all.log, 3_600_000) } };
  const d = await metered(3_000);
  const r = await reserve(s, d, 2_000);
  await settle(s, r, entry(100));
  const usage = s.usage as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const real = usage[method]!;
  let calls = 0;
  usage[method] = async (...a: unknown[]) => {
    const out = await real.apply(s.usage, a);
    if (calls++ === 0) await s.billing.settles.flush();
    return out;
  };
  return { s, d, key: r.key, calls: () => calls, restore: () => (usage[method] = real) };
}

test('a settlement that lands while a reservation is checked does not refuse it', async () => {
  const t = await writeLandsDuring('reserve');
  try {
    const next = await reserve(t.s, t.d, 2_000);
    assert.equal(next.amountNano, 2_000);
    assert.equal(t.calls(), 2, 'refused on the figures from before the write, then tried again');
    await settle(t.s, next, entry(100));
    await t.s.billing.settles.flush();
    assert.deepEqual(await t.s.usage.period(t.key), { allowanceNano: 3_000, reservedNano: 0, usedNano: 200 });
  } finally {
    t.restore();
  }
});

test("a settlement that lands while the proxy's credit check reads does not refuse the chat", async () => {
  const t = await writeLandsDuring('period');
  try {
    await assertCredit(t.s, t.d, 2_000);
    assert.equal(t.calls(), 2, 'read again, on exact figures');
  } finally {
    t.restore();
  }
});

test('many settlements of one moment are written together, with every ledger row', async () => {
  const s = h.runtime.services;
  const d = await metered(1_000_000);
  const holds = await Promise.all(Array.from({ length: 250 }, () => reserve(s, d, 1_000)));
  for (const r of holds) await settle(s, r, entry(900));
  await s.billing.settles.flush();
  const p = await s.usage.period(holds[0]!.key);
  assert.deepEqual(p, { allowanceNano: 1_000_000, reservedNano: 0, usedNano: 225_000 });
  assert.equal(await bookedReplies(d.id), 250);
});

test('reservations asked at the same moment share a commit, yet each is held or refused on its own', async () => {
  const s = h.runtime.services;
  const d = await metered(10_000);
  const asked = await Promise.allSettled(Array.from({ length: 25 }, () => reserve(s, d, 1_000)));
  const held = asked.filter((a) => a.status === 'fulfilled');
  assert.equal(held.length, 10);
  for (const a of asked)
    if (a.status === 'rejected') assert.equal((a.reason as { code?: string }).code, 'CREDITS_EXHAUSTED');
  assert.deepEqual(await s.usage.period(held[0]!.value.key), {
    allowanceNano: 10_000,
    reservedNano: 10_000,
    usedNano: 0,
  });
});

test('ledger rows get ids in the order they are booked, so each batch appends to the end of the key', async () => {
  const s = h.runtime.services;
  const d = await metered(1_000_000);
  const ids: string[] = [];
  for (let batch = 0; batch < 3; batch++) {
    const holds = await Promise.all(Array.from({ length: 40 }, () => reserve(s, d, 1_000)));
    for (const r of holds) await settle(s, r, entry(900));
    await s.billing.settles.flush();
    const rows = await h.runtime.store.db
      .selectFrom('usage_records')
      .select('id')
      .where('deployment_id', '=', d.id)
      .where('id', 'not in', ids.length ? ids : [''])
      .execute();
    // Every row of this batch sorts after every row booked before it.
    const fresh = rows.map((r) => r.id).sort();
    assert.equal(fresh.length, 40);
    if (ids.length) assert.ok(fresh[0]! > ids.at(-1)!, `batch ${batch} sorts after the one before`);
    ids.push(...fresh);
  }
  assert.match(ids[0]!, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('a deployment deleted while its replies wait to be settled neither fails the batch nor the delete', async () => {
  const s = h.runtime.services;
  const gone = await metered(1_000_000);
  const kept = await metered(1_000_000);
  const r1 = await reserve(s, gone, 1_000);
  const r2 = await reserve(s, kept, 1_000);
  await settle(s, r1, entry(500));
  await settle(s, r2, entry(700));
  // The delete and the batch race; on PostgreSQL they take the deployment's row in the same order.
  const [deleted] = await Promise.all([s.deployments.delete(gone.id, gone.generation), s.billing.settles.flush()]);
  assert.equal(deleted, true);
  await s.billing.settles.flush();
  assert.deepEqual(await s.usage.period(r2.key), { allowanceNano: 1_000_000, reservedNano: 0, usedNano: 700 });
  const rows = await h.runtime.store.db.selectFrom('usage_records').select('deployment_id').execute();
  assert.ok(rows.some((x) => x.deployment_id === kept.id));
  assert.ok(!rows.some((x) => x.deployment_id === gone.id));
});

test('a reservation waits for a settlement write only when that write books more than it held', async () => {
  let land!: () => void;
  const slow = { settleMany: () => new Promise<number>((r) => (land = () => r(0))) };
  const q = new SettleQueue(slow, h.runtime.services.log, 60_000);
  const key = { deploymentId: 'd-slow', periodEnd: '2026-12-24T00:00:00.000Z' };
  const settled = (costNano: number) => ({ key, reservedNano: 1_000, entry: entry(costNano), at: new Date() });
  const race = (p: Promise<void>) =>
    Promise.race([p.then(() => 'went on'), new Promise((r) => setTimeout(() => r('waited'), 50))]);
  // Cheaper than its hold: the store, still counting the hold, is cautious; nothing to wait for.
  q.add(settled(100));
  void q.flush();
  assert.equal(await race(q.before(key)), 'went on');
  // Dearer than its hold: the store is too generous until the write lands.
  land();
  q.add(settled(5_000));
  void q.flush();
  assert.equal(await race(q.before(key)), 'waited');
  land();
  assert.equal(await race(q.before(key)), 'went on');
});

test('a batch that fails to write (full disk) is retried until written: no ledger row lost, no hold left', async () => {
  const s = h.runtime.services;
  const d = await metered(1_000_000);
  const usage = s.usage;
  const real = usage.settleMany.bind(usage);
  let refused = 0;
  usage.settleMany = async (items) => {
    if (refused < 3) {
      refused++;
      throw new Error('SQLITE_FULL: database or disk is full');
    }
    return real(items);
  };
  try {
    const holds = await Promise.all(Array.from({ length: 20 }, () => reserve(s, d, 1_000)));
    for (const r of holds) await settle(s, r, entry(400));
    // Written in the background, after the failures, without anyone asking again.
    const key = holds[0]!.key;
    for (let i = 0; ; i++) {
      const p = await s.usage.period(key);
      if (p?.reservedNano === 0) break;
      assert.ok(i < 400, `still reserved after retries: ${JSON.stringify(p)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(refused, 3);
    assert.deepEqual(await s.usage.period(key), { allowanceNano: 1_000_000, reservedNano: 0, usedNano: 8_000 });
    assert.equal(await bookedReplies(d.id), 20);
    assert.ok(h.logs.some((l) => l.includes('usage could not be settled; retrying')));
  } finally {
    usage.settleMany = real;
  }
});
