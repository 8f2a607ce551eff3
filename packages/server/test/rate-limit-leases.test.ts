// The per-person limit's leases (store/rate-limits.ts `take`): a replica counts a few places of a
// person's count ahead and answers from them without a write. Two stores opened on one database
// stand for two control planes; whatever the interleaving, a place of the count is given once, so
// no more than the limit ever pass, and a replica strands at most one lease of the others' budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/platform/store/database.js';
import { LEASE_MAX, LEASE_SHARE, RateLimitRepo, type WindowCount } from '../src/platform/store/rate-limits.js';
import { createTestDatabase, DIALECT } from './helpers/database.js';

async function withReplicas(fn: (one: RateLimitRepo, two: RateLimitRepo) => Promise<void>) {
  const db = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-leases-'));
  // On SQLite both open the same file, as replicas share one PostgreSQL.
  const [a, b] = [await openStore({ databaseUrl: db.url, dataDir }), await openStore({ databaseUrl: db.url, dataDir })];
  try {
    await fn(new RateLimitRepo(a.db), new RateLimitRepo(b.db));
  } finally {
    await a.close();
    await b.close();
    await db.drop();
  }
}

const MAX = 640;
/** The most places one lease takes at this limit: what a replica can strand of the others' budget. */
const LEASE = Math.min(LEASE_MAX, Math.floor(MAX / LEASE_SHARE));

test(`rate limit on ${DIALECT}: concurrent calls on two replicas never pass the limit, and are refused at most one lease early`, () =>
  withReplicas(async (one, two) => {
    const places = new Set<number>();
    let passed = 0;
    const admit = (cs: WindowCount[]) => {
      for (const c of cs) {
        assert.ok(!places.has(c.count), `place ${c.count} given twice`);
        places.add(c.count);
        if (c.count <= MAX) passed++;
      }
    };
    // Both replicas at once, turn after turn, then only the second: the first keeps its last lease.
    for (let turn = 0; turn < 30; turn++)
      admit(await Promise.all(Array.from({ length: 7 }, (_, i) => (i % 2 ? one : two).take('user:p', 60_000, MAX))));
    for (let turn = 0; turn < 100; turn++)
      admit(await Promise.all(Array.from({ length: 5 }, () => two.take('user:p', 60_000, MAX))));
    assert.ok(passed <= MAX, `${passed} passed a limit of ${MAX}`);
    assert.ok(passed >= MAX - LEASE, `${passed} passed, more than one lease (${LEASE}) under ${MAX}`);
  }));

test(`rate limit on ${DIALECT}: a replica's next calls are answered from its lease, and a new window never uses the old one's`, () =>
  withReplicas(async (one) => {
    assert.deepEqual(await one.take('user:q', 60_000, MAX), { count: 1, windowStart: 60_000 });
    // The first call took LEASE more places: the database's count is ahead of the calls.
    assert.deepEqual(await one.read('user:q', 60_000), { count: 1 + LEASE, windowStart: 60_000 });
    for (let i = 2; i <= 1 + LEASE; i++)
      assert.deepEqual(one.take('user:q', 60_000, MAX), { count: i, windowStart: 60_000 });
    assert.equal((await one.read('user:q', 60_000)).count, 1 + LEASE, 'answered from the lease, without a write');
    // The lease spent, the next call counts again; a later window starts over, whatever is leased.
    assert.equal((await one.take('user:q', 60_000, MAX)).count, 2 + LEASE);
    assert.deepEqual(await one.take('user:q', 120_000, MAX), { count: 1, windowStart: 120_000 });
  }));

test(`rate limit on ${DIALECT}: a small limit is never leased (each call is counted in the database)`, () =>
  withReplicas(async (one, two) => {
    const counts: number[] = [];
    for (let i = 0; i < 7; i++) counts.push((await (i % 2 ? one : two).take('user:r', 60_000, 5)).count);
    assert.deepEqual(counts, [1, 2, 3, 4, 5, 6, 7]);
    assert.equal((await one.read('user:r', 60_000)).count, 7);
  }));

test(`rate limit on ${DIALECT}: a large limit leases at most LEASE_MAX places, and a lease's places are answered in order without a write`, () =>
  withReplicas(async (one, two) => {
    const max = 1_000_000;
    assert.deepEqual(await one.take('user:big', 60_000, max), { count: 1, windowStart: 60_000 });
    // 1/LEASE_SHARE of this limit would be 15,625 places: the cap is what another replica can lose.
    assert.equal((await two.read('user:big', 60_000)).count, 1 + LEASE_MAX);
    for (let i = 2; i <= 1 + LEASE_MAX; i++) assert.equal((one.take('user:big', 60_000, max) as WindowCount).count, i);
    // The other replica's first call counts after the lease: no place is given twice.
    assert.equal((await two.take('user:big', 60_000, max)).count, 2 + LEASE_MAX);
  }));

test(`rate limit on ${DIALECT}: calls alternating between two replicas get exactly the limit, then only refusals`, () =>
  withReplicas(async (one, two) => {
    // Leases shrink as the count nears the limit and stop in its last LEASE_SHARE places, so no
    // place is left stranded on the replica that is not asked at the end.
    const passed: boolean[] = [];
    for (let i = 0; i < MAX + 10; i++)
      passed.push((await (i % 2 ? two : one).take('user:s', 60_000, MAX)).count <= MAX);
    assert.equal(passed.filter(Boolean).length, MAX, 'exactly the limit');
    assert.deepEqual([...new Set(passed.slice(MAX))], [false]);
  }));

test(`rate limit on ${DIALECT}: leases of an earlier window are dropped once many people called, so a replica's memory stays bounded`, () =>
  withReplicas(async (one) => {
    const window = 60_000;
    const start = Math.floor(Date.now() / window) * window;
    // 10,000 people each call once in one window: each keeps a lease with places left.
    await Promise.all(Array.from({ length: 10_000 }, (_, i) => one.take(`person-${i}`, start, MAX)));
    assert.equal(one.leaseCount, 10_000);
    // In the next window one more person calls: the old window's leases go.
    await one.take('person-next', start + window, MAX);
    assert.equal(one.leaseCount, 1);
  }));
