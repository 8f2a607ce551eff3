// Booking is off the request's path (a settlement waits a few milliseconds for its batch) and never
// lost: each settlement's intent is in the process's usage journal before its batch is written, so
// a process killed between the answer and the booking has it booked by the next start, exactly once.
// The crash is a queue whose store never answers, abandoned as a kill -9 would leave it (its file
// names this process's pid, which a restarted container may well reuse); the store is real.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { startHarness, type Harness } from './helpers/harness.js';
import { tempDirForFile } from './helpers/temp-dir.js';
import { purchase } from './helpers/api.js';
import { reserve } from '../src/billing/allowance.js';
import { SettleQueue } from '../src/billing/settle-queue.js';
import { UsageJournal } from '../src/billing/usage-journal.js';
import type { Settlement, UsageRepo } from '../src/platform/store/usage.js';

let h: Harness;
const dir = tempDirForFile('berth-journal-');
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h.close();
});

const entry = (costNano: number) => ({
  source: 'gateway' as const,
  model: 'm',
  promptTokens: 3,
  completionTokens: 5,
  costNano,
});

async function metered() {
  const { deploymentId } = await purchase(h, await h.key(), 'managed');
  const d = (await h.runtime.services.deployments.findById(deploymentId))!;
  await h.runtime.services.usage.ensurePeriod({ deploymentId, periodEnd: d.currentPeriodEnd }, 1_000_000);
  return d;
}

async function ledger(id: string) {
  return h.runtime.store.db.selectFrom('usage_records').selectAll().where('deployment_id', '=', id).execute();
}

/** A queue as the runtime has it, journaled in `dir`, writing through `usage`. */
async function queue(usage: Pick<UsageRepo, 'settleMany'>) {
  const q = new SettleQueue(usage, h.runtime.services.log);
  q.journal = await UsageJournal.open(dir, h.runtime.services.usage, h.runtime.services.log);
  return q;
}

/** What a kill -9 leaves: the file, and no process holding it (the test's own process stands in). */
function kill(q: SettleQueue) {
  q.journal?.close(false);
  q.journal = undefined;
}

test('killed between the answer and the booking: the next start books every reply once, and releases its hold', async () => {
  const s = h.runtime.services;
  const d = await metered();
  const holds = await Promise.all(Array.from({ length: 5 }, () => reserve(s, d, 1_000)));
  // The store never answers this process again: what was queued is only in its journal.
  let writing!: () => void;
  const batchWritten = new Promise<void>((r) => (writing = r));
  const dead = await queue({
    settleMany: () => {
      writing();
      return new Promise<number>(() => {});
    },
  });
  for (const r of holds) dead.add({ key: r.key, reservedNano: r.amountNano, entry: entry(700), at: new Date() });
  await batchWritten; // its batch is "being written" when it dies
  kill(dead);
  assert.equal((await ledger(d.id)).length, 0);
  assert.equal((await s.usage.period(holds[0]!.key))?.reservedNano, 5_000);

  const next = await queue(s.usage); // the next start
  const rows = await ledger(d.id);
  assert.equal(rows.length, 5);
  assert.deepEqual(
    rows.map((r) => [r.prompt_tokens, r.completion_tokens, Number(r.cost_nano)]),
    Array(5).fill([3, 5, 700]),
  );
  assert.deepEqual(await s.usage.period(holds[0]!.key), { allowanceNano: 1_000_000, reservedNano: 0, usedNano: 3_500 });
  // And once only: a third start finds nothing left to replay.
  await next.drain();
  await (await queue(s.usage)).drain();
  assert.equal((await ledger(d.id)).length, 5);
  assert.deepEqual(readdirSync(dir), [], 'clean closes leave no journal behind');
});

test('killed after its batches were booked: the journal left behind books nothing twice', async () => {
  const s = h.runtime.services;
  const d = await metered();
  const q = await queue(s.usage);
  for (let i = 0; i < 3; i++) {
    const r = await reserve(s, d, 1_000);
    q.add({ key: r.key, reservedNano: r.amountNano, entry: entry(600), at: new Date() });
  }
  await q.flush();
  // Killed now (no close): the file still holds the three lines, the store has them booked.
  assert.equal(readdirSync(dir).length, 1);
  kill(q);
  const next = await queue(s.usage);
  assert.equal((await ledger(d.id)).length, 3);
  assert.equal((await s.usage.period({ deploymentId: d.id, periodEnd: d.currentPeriodEnd }))?.usedNano, 1_800);
  await next.drain();
});

test('a batch taken before an earlier one failed lands after it: the mark never passes an unbooked reply', async () => {
  const s = h.runtime.services;
  const d = await metered();
  const marks: number[] = [];
  let fail = 1;
  const q = await queue({
    settleMany: async (items: Settlement[], mark) => {
      // The first write fails after the second batch was already taken.
      if (fail-- > 0) {
        await new Promise((r) => setTimeout(r, 20));
        throw new Error('connection lost');
      }
      const n = await s.usage.settleMany(items, mark);
      if (mark) marks.push(mark.seq);
      return n;
    },
  });
  const add = async () => {
    const r = await reserve(s, d, 1_000);
    q.add({ key: r.key, reservedNano: r.amountNano, entry: entry(100), at: new Date() });
  };
  await add();
  void q.flush();
  await add();
  void q.flush();
  for (let i = 0; (await ledger(d.id)).length < 2; i++) {
    assert.ok(i < 200, 'both booked after the retry');
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.deepEqual(marks, [2], 'one write of both, in journal order');
  await q.drain();
});
