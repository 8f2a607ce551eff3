// Reservations of one event-loop turn share a SQLite commit (platform/store/turn-batch.ts): each
// is still held or refused on its own, a failure stays its caller's, and an open transaction is
// never joined. SQLite only: PostgreSQL commits each on its own connection (this file never reaches
// the test database helper, so it runs on SQLite alone).
import { type TestContext, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openStore } from '../src/platform/store/database.js';

const periodEnd = '2026-12-24T00:00:00.000Z';

/** A fresh in-memory store without foreign keys (period rows need no deployment here), closed after `t`. */
async function store(t?: TestContext) {
  const s = await openStore({ sqliteFile: ':memory:' });
  await sql`PRAGMA foreign_keys = OFF`.execute(s.db);
  t?.after(() => s.close());
  return s;
}
const key = (id: string) => ({ deploymentId: id, periodEnd });
async function reserved(s: Awaited<ReturnType<typeof store>>, id: string) {
  return (await s.repos.usage.period(key(id)))?.reservedNano;
}

for (const how of ['ABORT', 'FAIL', 'ROLLBACK'] as const)
  test(`a statement failing mid-batch (RAISE(${how})): the others held once, the failing one rejected`, async (t) => {
    const s = await store(t);
    const u = s.repos.usage;
    for (const id of ['a', 'b', 'bad', 'c']) await u.ensurePeriod(key(id), 10_000);
    await sql
      .raw(
        `CREATE TRIGGER boom BEFORE UPDATE OF reserved_nano ON usage_periods WHEN NEW.deployment_id = 'bad' BEGIN SELECT RAISE(${how}, 'boom'); END`,
      )
      .execute(s.db);
    const asked = await Promise.allSettled(['a', 'b', 'bad', 'c'].map((id) => u.reserve(key(id), 1_000)));
    assert.deepEqual(
      asked.map((a) => a.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    for (const id of ['a', 'b', 'c']) assert.equal(await reserved(s, id), 1_000, id);
    assert.equal(await reserved(s, 'bad'), 0);
  });

test('a batch asked while an async transaction holds the connection waits and does not join it', async (t) => {
  const s = await store(t);
  const u = s.repos.usage;
  await u.ensurePeriod(key('a'), 10_000);
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const tx = s
    .transaction(async (repos) => {
      await repos.usage.setAllowance(key('a'), 10_000);
      open();
      await gate;
      throw new Error('rolled back');
    })
    .catch((e: Error) => e.message);
  await opened;
  const asked = Promise.all([u.reserve(key('a'), 1_000), u.reserve(key('a'), 2_000)]);
  // A few turns of the loop with the transaction still open: the batch meets it and waits.
  await new Promise((r) => setTimeout(r, 20));
  release();
  assert.equal(await tx, 'rolled back');
  assert.deepEqual(await asked, [true, true]);
  assert.equal(await reserved(s, 'a'), 3_000);
});

test('a reservation inside a transaction (its repos) runs in it and rolls back with it', async (t) => {
  const s = await store(t);
  await s.repos.usage.ensurePeriod(key('a'), 10_000);
  const out = await s
    .transaction(async (repos) => {
      assert.equal(await repos.usage.reserve(key('a'), 1_000), true);
      assert.equal((await repos.usage.period(key('a')))?.reservedNano, 1_000);
      throw new Error('rolled back');
    })
    .catch((e: Error) => e.message);
  assert.equal(out, 'rolled back');
  assert.equal(await reserved(s, 'a'), 0);
});

test('the store closed while a batch waits for its turn: the caller hears an error (no hang)', async () => {
  const s = await store();
  await s.repos.usage.ensurePeriod(key('a'), 10_000);
  const asked = s.repos.usage.reserve(key('a'), 1_000);
  await s.close();
  const out = await Promise.race([
    asked.then(
      (v) => `answered ${v}`,
      (e: Error) => `rejected: ${e.message}`,
    ),
    new Promise((r) => setTimeout(() => r('hung'), 1_000)),
  ]);
  // Asked in the same turn as the close, it cannot be written any more: an error, never a hang.
  assert.match(String(out), /^rejected: .*not open/);
});

test('the reservations of one turn run in one SQLite transaction', async (t) => {
  const Sqlite = (await import('better-sqlite3')).default;
  const s = await store(t);
  const proto = Sqlite.prototype as unknown as { transaction: (...a: unknown[]) => unknown };
  const real = proto.transaction;
  let transactions = 0;
  proto.transaction = function (this: unknown, ...a: unknown[]) {
    transactions++;
    return real.apply(this, a);
  };
  try {
    const u = s.repos.usage;
    await u.ensurePeriod(key('a'), 10_000);
    transactions = 0;
    const asked = await Promise.all(Array.from({ length: 12 }, () => u.reserve(key('a'), 1_000)));
    assert.equal(asked.filter(Boolean).length, 10);
    assert.equal(transactions, 1);
    assert.equal(await reserved(s, 'a'), 10_000);
  } finally {
    proto.transaction = real;
  }
});
