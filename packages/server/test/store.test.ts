// The store on the dialect under test (SQLite file by default, PostgreSQL in CI's second pass).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore } from '../src/platform/store/database.js';
import { migrate } from '../src/platform/store/database.js';
import { DeploymentRepo } from '../src/platform/store/deployments.js';
import { UserRepo } from '../src/platform/store/users.js';
import { RateLimitRepo } from '../src/platform/store/rate-limits.js';
import { directTransaction } from '../src/platform/store/prepared.js';
import { createTestDatabase, DIALECT } from './helpers/database.js';
import type { Deployment } from '../src/domain/deployment.js';
import { until } from './helpers/until.js';

async function withStore(fn: (s: Awaited<ReturnType<typeof openStore>>) => Promise<void>) {
  const db = await createTestDatabase();
  const store = await openStore({ databaseUrl: db.url, dataDir: mkdtempSync(join(tmpdir(), 'berth-store-')) });
  try {
    await fn(store);
  } finally {
    await store.close();
    await db.drop();
  }
}

/** A user for a test's deployments and keys to belong to. */
function addUser(db: Awaited<ReturnType<typeof openStore>>['db'], id: string) {
  return new UserRepo(db).ensure({
    id,
    email: `${id}@b.co`,
    webhookSecretEnc: 'x',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
}

function deployment(
  id: string,
  userId: string,
  createdAt: string,
  paymentStatus: Deployment['paymentStatus'] = 'pending',
): Deployment {
  return {
    id,
    userId,
    organizationId: null,
    name: 'n',
    botTokenHash: null,
    modelProvider: '',
    modelId: '',
    channelType: 'telegram',
    apiMode: 'byok',
    framework: 'assistant-agent',
    workerName: `asst-${id}`,
    workerUrl: null,
    status: 'purchased',
    statusMessage: null,
    desired: 'stopped',
    observed: 'absent',
    paymentStatus,
    paymentSubscriptionId: '',
    currentPeriodEnd: createdAt,
    canceledAt: null,
    isPrebuy: true,
    userCallbackUrl: null,
    botTokenEnc: null,
    modelApiKeyEnc: null,
    gatewayTokenEnc: null,
    checkoutId: `co-${id}`,
    generation: 0,
    paymentEventAt: null,
    suspendedReason: null,
    createdAt,
    updatedAt: createdAt,
  };
}

test(`store on ${DIALECT}: migrations are idempotent`, () =>
  withStore(async (s) => {
    assert.equal(s.dialect, DIALECT);
    await migrate(s.db);
    await migrate(s.db);
    const tables = await s.db.introspection.getTables();
    const names = tables.map((t) => t.name);
    for (const t of ['users', 'api_keys', 'deployments']) assert.ok(names.includes(t), t);
  }));

test(`store on ${DIALECT}: the pending migrations apply together or not at all, and the store starts once the obstacle is gone`, async () => {
  const db = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-store-'));
  try {
    // A table in the way of a later migration (0009 creates callback_sequences).
    const bare = await openStore({ databaseUrl: db.url, dataDir, migrate: false });
    await sql`CREATE TABLE callback_sequences (stray integer)`.execute(bare.db);
    await bare.close();
    await assert.rejects(
      openStore({ databaseUrl: db.url, dataDir }),
      /database migration 0009-callback-sequences failed/,
    );

    const after = await openStore({ databaseUrl: db.url, dataDir, migrate: false });
    const names = (await after.db.introspection.getTables()).map((t) => t.name);
    assert.ok(!names.includes('users'), "0001's tables were rolled back with the failed one");
    const applied = await sql<{ n: number }>`SELECT count(*) AS n FROM berth_migrations`.execute(after.db);
    assert.equal(Number(applied.rows[0]!.n), 0, 'no migration recorded as applied');
    await sql`DROP TABLE callback_sequences`.execute(after.db);
    await after.close();

    const store = await openStore({ databaseUrl: db.url, dataDir });
    const tables = (await store.db.introspection.getTables()).map((t) => t.name);
    for (const t of ['users', 'deployments', 'callback_sequences']) assert.ok(tables.includes(t), t);
    await store.close();
  } finally {
    await db.drop();
  }
});

test(`store on ${DIALECT}: round trip keeps types (booleans, nulls, numbers)`, () =>
  withStore(async (s) => {
    const users = new UserRepo(s.db);
    const u = await users.ensure({
      id: 'u1',
      email: 'a@b.co',
      webhookSecretEnc: 'x',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    const again = await users.ensure({
      id: 'u2',
      email: 'a@b.co',
      webhookSecretEnc: 'y',
      createdAt: '2026-01-02T00:00:00.000Z',
    });
    assert.equal(again.id, u.id, 'ensure keeps the first user');
    const repo = new DeploymentRepo(s.db);
    const d = deployment('11111111-1111-4111-8111-111111111111', 'u1', '2026-01-01T00:00:00.000Z');
    await repo.insert(d);
    assert.deepEqual(await repo.findById(d.id), d);
    assert.equal(await repo.findOwned(d.id, { userId: 'someone-else', organizationId: null }), undefined);
    assert.deepEqual(await repo.findByCheckoutId(d.checkoutId), d);
  }));

test(`store on ${DIALECT}: a write guarded by a stale generation does nothing`, () =>
  withStore(async (s) => {
    await addUser(s.db, 'u1');
    const repo = new DeploymentRepo(s.db);
    const d = deployment('22222222-2222-4222-8222-222222222222', 'u1', '2026-01-01T00:00:00.000Z');
    await repo.insert(d);
    const bumped = await repo.update(d.id, 0, { status: 'deploying', isPrebuy: false }, { bumpGeneration: true });
    assert.equal(bumped?.generation, 1);
    assert.equal(bumped?.isPrebuy, false);
    assert.equal(await repo.update(d.id, 0, { status: 'active' }), undefined);
    assert.equal((await repo.findById(d.id))?.status, 'deploying');
    assert.equal(await repo.delete(d.id, 0), false);
    assert.equal(await repo.delete(d.id, 1), true);
  }));

test(`store on ${DIALECT}: list order and the one-hour pending rule`, () =>
  withStore(async (s) => {
    await addUser(s.db, 'u1');
    await addUser(s.db, 'u2');
    const repo = new DeploymentRepo(s.db);
    const rows = [
      deployment('a0000000-0000-4000-8000-000000000001', 'u1', '2026-01-01T10:00:00.000Z', 'pending'),
      deployment('a0000000-0000-4000-8000-000000000002', 'u1', '2026-01-01T10:30:00.000Z', 'paid'),
      deployment('a0000000-0000-4000-8000-000000000003', 'u1', '2026-01-01T11:30:00.000Z', 'pending'),
      deployment('a0000000-0000-4000-8000-000000000004', 'u2', '2026-01-01T11:40:00.000Z', 'paid'),
    ];
    for (const r of rows) await repo.insert(r);
    const visible = await repo.listVisible({ userId: 'u1', organizationId: null }, '2026-01-01T11:00:00.000Z');
    assert.deepEqual(
      visible.map((d) => d.id),
      [rows[2]!.id, rows[1]!.id],
    );
  }));

test(`store on ${DIALECT}: API keys resolve by hash until revoked`, () =>
  withStore(async (s) => {
    const users = new UserRepo(s.db);
    await addUser(s.db, 'u1');
    await users.insertKey({
      id: 'k1',
      userId: 'u1',
      prefix: 'berth_abc',
      hash: 'h'.repeat(64),
      createdAt: '2026-01-01T00:00:00.000Z',
      revokedAt: null,
    });
    assert.deepEqual(await users.findActiveKeyOwner('h'.repeat(64)), {
      keyId: 'k1',
      userId: 'u1',
      organizationId: null,
      lastUsedAt: null,
    });
    assert.equal(await users.revokeKey('u1', 'berth_abc', '2026-01-02T00:00:00.000Z'), 1);
    assert.equal(await users.findActiveKeyOwner('h'.repeat(64)), undefined);
  }));

test(`store on ${DIALECT}: prepared queries run with each call's own values, never the markers`, () =>
  withStore(async ({ db }) => {
    for (const id of ['u-1', 'u-2']) await addUser(db, id);
    const repo = new DeploymentRepo(db);
    await repo.insert(deployment('d-1', 'u-1', '2026-01-01T00:00:00.000Z'));
    await repo.insert(deployment('d-2', 'u-2', '2026-01-02T00:00:00.000Z'));
    // Owner and id both bind, each call with its own values: another user's id finds nothing, and
    // neither does an organization that does not hold the deployment.
    const personal = (userId: string) => ({ userId, organizationId: null });
    assert.equal((await repo.findOwned('d-1', personal('u-1')))?.id, 'd-1');
    assert.equal((await repo.findOwned('d-2', personal('u-2')))?.id, 'd-2');
    assert.equal(await repo.findOwned('d-1', personal('u-2')), undefined);
    assert.equal(await repo.findOwned('d-2', personal('u-1')), undefined);
    assert.equal(await repo.findOwned('d-1', { userId: 'u-1', organizationId: 'org-1' }), undefined);
    const limits = new RateLimitRepo(db);
    assert.deepEqual(await limits.hit('key:a', 60_000), { count: 1, windowStart: 60_000 });
    assert.deepEqual(await limits.hit('key:a', 60_000), { count: 2, windowStart: 60_000 });
    assert.deepEqual(await limits.hit('key:b', 60_000), { count: 1, windowStart: 60_000 });
    // A later window restarts the count; a lagging replica's earlier window counts in the current one.
    assert.deepEqual(await limits.hit('key:a', 120_000), { count: 1, windowStart: 120_000 });
    assert.deepEqual(await limits.hit('key:a', 60_000), { count: 2, windowStart: 120_000 });
  }));

test(`store on ${DIALECT}: a prepared query never joins a transaction another request has open`, () =>
  withStore(async ({ db }) => {
    const limits = new RateLimitRepo(db);
    let inside!: () => void;
    const opened = new Promise<void>((r) => (inside = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // A transaction that writes, waits across awaits (as a request's transaction does), then fails.
    const failing = db
      .transaction()
      .execute(async (trx) => {
        await new RateLimitRepo(trx).hit('key:trx', 60_000);
        inside();
        await held;
        throw new Error('rolled back');
      })
      .catch(() => 'rolled back');
    await opened;
    // Meanwhile another request counts on the same key: its count must survive the rollback.
    const counted = limits.hit('key:other', 60_000);
    release();
    assert.equal(await failing, 'rolled back');
    assert.deepEqual(await counted, { count: 1, windowStart: 60_000 });
    assert.deepEqual(await limits.read('key:other', 60_000), { count: 1, windowStart: 60_000 });
    assert.deepEqual(await limits.read('key:trx', 60_000), { count: 0, windowStart: 60_000 });
  }));

test(`store on ${DIALECT}: counts of one turn are written together and each request gets its own place`, () =>
  withStore(async ({ db }) => {
    // Two repos stand for two replicas on one database; their requests arrive in the same turns.
    const [one, two] = [new RateLimitRepo(db), new RateLimitRepo(db)];
    const hits = [
      ...Array.from({ length: 30 }, (_, i) => (i % 2 ? one : two).hit('key:a', 60_000)),
      ...Array.from({ length: 10 }, () => one.hit('key:b', 60_000)),
      // More keys than one statement takes: the turn is split, still counted once each.
      ...Array.from({ length: 120 }, (_, i) => two.hit(`key:many-${i}`, 60_000)),
    ];
    const counts = (await Promise.all(hits)).map((c) => c.count);
    const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
    assert.deepEqual(
      sorted(counts.slice(0, 30)),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      sorted(counts.slice(30, 40)),
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    assert.deepEqual(counts.slice(40), Array(120).fill(1));
    assert.deepEqual(await one.read('key:a', 60_000), { count: 30, windowStart: 60_000 });
    // The next turn goes on from there, and a later window starts over.
    const [next, fresh] = await Promise.all([two.hit('key:a', 60_000), one.hit('key:b', 120_000)]);
    assert.deepEqual(next, { count: 31, windowStart: 60_000 });
    assert.deepEqual(fresh, { count: 1, windowStart: 120_000 });
  }));

test(`store on ${DIALECT}: replicas counting the same keys in opposite orders never deadlock`, () =>
  withStore(async ({ db }) => {
    const replicas = Array.from({ length: 4 }, () => new RateLimitRepo(db));
    const keys = Array.from({ length: 50 }, (_, i) => `key:order-${String(i).padStart(2, '0')}`);
    const ROUNDS = 30;
    for (let round = 1; round <= ROUNDS; round++) {
      // Each replica's turn arrives in its own order; on PostgreSQL their statements run at once.
      const counted = await Promise.all(
        replicas.flatMap((r, i) => (i % 2 ? [...keys].reverse() : keys).map((k) => r.hit(k, 60_000))),
      );
      assert.equal(counted.length, keys.length * replicas.length);
    }
    for (const k of keys) assert.equal((await replicas[0]!.read(k, 60_000)).count, ROUNDS * replicas.length);
  }));

test(`store on ${DIALECT}: a direct transaction runs whole or not at all, and never inside another one`, () =>
  withStore(async ({ db, dialect }) => {
    const hit = (key: string) =>
      db.insertInto('rate_limit_counters').values({ key, window_start: 0, count: 1 }).compile();
    const count = async () => (await db.selectFrom('rate_limit_counters').selectAll().execute()).length;
    if (dialect === 'postgres') {
      assert.equal(
        directTransaction(db, () => 1),
        undefined,
        'PostgreSQL takes the asynchronous path',
      );
      return;
    }
    assert.deepEqual(
      directTransaction(db, (run) => run(hit('direct:a')).numAffectedRows),
      { value: 1n },
    );
    assert.throws(() =>
      directTransaction(db, (run) => {
        run(hit('direct:b'));
        throw new Error('fails half way');
      }),
    );
    assert.equal(await count(), 1, 'the failed one left nothing');
    let release!: () => void;
    let opened!: () => void;
    const inside = new Promise<void>((r) => (opened = r));
    const open = db.transaction().execute(async (trx) => {
      await trx.insertInto('rate_limit_counters').values({ key: 'trx', window_start: 0, count: 1 }).execute();
      opened();
      await new Promise<void>((r) => (release = r));
    });
    await inside;
    assert.equal(
      directTransaction(db, () => 1),
      undefined,
      'not while a transaction is open',
    );
    release();
    await open;
    assert.equal(await count(), 2);
  }));

test(`store on ${DIALECT}: SQLite's log is copied back into the database by a worker thread, not by the writer`, async (t) => {
  if (DIALECT === 'postgres') return t.skip('SQLite only');
  const dir = mkdtempSync(join(tmpdir(), 'berth-checkpoint-'));
  const store = await openStore({ dataDir: dir });
  try {
    const file = join(dir, 'berth.sqlite');
    await sql`CREATE TABLE scratch (x TEXT)`.execute(store.db);
    const before = statSync(file).size;
    // About 2 MB through the log: far below the writer's own mark of 10,000 pages.
    for (let i = 0; i < 250; i++) await sql`INSERT INTO scratch VALUES (${'x'.repeat(8000)})`.execute(store.db);
    await until(
      'the database file to take the log',
      () => statSync(file).size >= before + 1_500_000 || undefined,
      5000,
    );
  } finally {
    await store.close();
  }
});

test(
  'store on postgres: tables loaded without planner statistics (a restore, a bulk load) are analyzed, so the desired-state page reads the index instead of sorting every row after the cursor',
  { skip: DIALECT !== 'postgres' && 'PostgreSQL only' },
  () =>
    withStore(async (s) => {
      await addUser(s.db, 'u1');
      const repo = new DeploymentRepo(s.db);
      const template = {
        ...deployment('b0000000-0000-4000-8000-000000000000', 'u1', '2026-01-01T00:00:00.000Z', 'paid'),
        desired: 'running' as const,
        status: 'active' as const,
      };
      await repo.insert(template);
      // Nothing analyzes behind the test's back (autovacuum would, a minute or so after the load).
      await sql`ALTER TABLE deployments SET (autovacuum_enabled = false)`.execute(s.db);
      // 20,000 copies in one statement, as a restore's COPY loads them.
      const { rows: columns } = await sql<{ name: string }>`
        SELECT column_name AS name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'deployments' ORDER BY ordinal_position`.execute(s.db);
      const fresh: Record<string, string> = {
        id: 'x.id',
        worker_name: "'asst-' || x.id",
        checkout_id: "'co-' || x.id",
      };
      const list = columns.map((c) => `"${c.name}"`).join(', ');
      const values = columns.map((c) => fresh[c.name] ?? `d."${c.name}"`).join(', ');
      await sql`
        INSERT INTO deployments (${sql.raw(list)})
        SELECT ${sql.raw(values)}
        FROM deployments d, (SELECT gen_random_uuid()::text AS id FROM generate_series(1, 20000)) x
        WHERE d.id = ${template.id}`.execute(s.db);
      // The restoring pass's page (DeploymentRepo.pageWantingWorkers), as PostgreSQL plans it.
      const plan = async () => {
        const { rows } = await sql<{ 'QUERY PLAN': unknown }>`
          EXPLAIN (FORMAT JSON) SELECT id, worker_name, status, generation FROM deployments
          WHERE desired = 'running' AND id > '' ORDER BY id LIMIT 250`.execute(s.db);
        return JSON.stringify(rows[0]!['QUERY PLAN']);
      };
      assert.match(
        await plan(),
        /"Node Type":"Sort"/,
        'without statistics: every row after the cursor read, then sorted',
      );
      const { analyzed } = await s.freshenStatistics();
      assert.ok(analyzed.includes('deployments'), `said: ${analyzed.join(', ')}`);
      assert.doesNotMatch(await plan(), /"Node Type":"Sort"/, 'with them: the (desired, id) index, in order, 250 rows');
      assert.match(await plan(), /Index Scan/);
      assert.ok(!(await s.freshenStatistics()).analyzed.includes('deployments'), 'analyzed once, not at every start');
      assert.deepEqual((await repo.pageWantingWorkers('', 3)).length, 3);
    }),
);
