// The durable job queue and runner on the real store (SQLite file or PostgreSQL): claims, leases,
// takeover after a lease expires, heartbeats, giving up, and two runners taking each job once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../src/platform/store/database.js';
import { JobQueue } from '../src/platform/store/jobs.js';
import { JobRunner, type JobOutcome } from '../src/platform/jobs/runner.js';
import { createTestDatabase, DIALECT } from './helpers/database.js';
import { capturingLogger } from './helpers/logs.js';
import { until } from './helpers/until.js';

async function stores(n: number) {
  const db = await createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'berth-jobs-'));
  const opened: Store[] = [];
  for (let i = 0; i < n; i++)
    opened.push(await openStore({ databaseUrl: db.url, sqliteFile: join(dir, 'jobs.sqlite') }));
  return {
    opened,
    async close() {
      for (const s of opened) await s.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function clock(start = Date.parse('2026-11-22T10:00:00.000Z')) {
  let t = start;
  return {
    now: () => new Date(t),
    advance: (ms: number) => {
      t += ms;
    },
  };
}

/** One store, and a queue on it whose clock the test moves; the store is closed after `fn`. */
async function onQueue(fn: (q: JobQueue, c: ReturnType<typeof clock>, store: Store) => Promise<void>) {
  const env = await stores(1);
  try {
    const c = clock();
    const store = env.opened[0]!;
    await fn(new JobQueue(store.db, store.dialect, c.now), c, store);
  } finally {
    await env.close();
  }
}

const statusOf = async (s: Store, id: string) =>
  await s.db
    .selectFrom('jobs')
    .select(['status', 'attempts', 'last_error', 'locked_by'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

test('claim takes due jobs oldest first, each once, and leaves future ones', () =>
  onQueue(async (q, c) => {
    const a = await q.enqueue({ kind: 'callback', runAt: new Date(c.now().getTime() - 3000) });
    const b = await q.enqueue({ kind: 'callback', runAt: new Date(c.now().getTime() - 2000) });
    const later = await q.enqueue({ kind: 'callback', runAt: new Date(c.now().getTime() + 60_000) });
    const d = await q.enqueue({ kind: 'callback', runAt: new Date(c.now().getTime() - 1000) });
    // RETURNING keeps no order: compare sets (the oldest two are taken first).
    assert.deepEqual(new Set((await q.claim('A', 2, 10_000)).map((j) => j.id)), new Set([a, b]));
    assert.deepEqual(
      (await q.claim('B', 5, 10_000)).map((j) => j.id),
      [d],
    );
    assert.deepEqual(await q.claim('C', 5, 10_000), []);
    c.advance(61_000);
    // The leases of a, b and d ran out too, so C takes them back along with the now-due one.
    assert.deepEqual(new Set((await q.claim('C', 5, 10_000)).map((j) => j.id)), new Set([a, b, d, later]));
  }));

test('a lease that expires is taken over; the old owner can no longer complete or retry it', () =>
  onQueue(async (q, c, store) => {
    const id = await q.enqueue({ kind: 'deploy', deploymentId: 'd1', generation: 2, payload: { deadline: 'x' } });
    const [first] = await q.claim('A', 1, 5000);
    assert.deepEqual([first.id, first.attempts, first.generation, first.payload], [id, 1, 2, { deadline: 'x' }]);
    c.advance(4999);
    assert.deepEqual(await q.claim('B', 1, 5000), [], 'taken over before the lease ran out');
    c.advance(2);
    const [again] = await q.claim('B', 1, 5000);
    assert.deepEqual([again.id, again.attempts], [id, 2]);
    await q.complete(id, 'A');
    await q.retry(id, 'A', c.now(), 'stale owner');
    assert.deepEqual(await statusOf(store, id), {
      status: 'pending',
      attempts: 2,
      last_error: null,
      locked_by: 'B',
    });
    await q.complete(id, 'B');
    assert.equal((await statusOf(store, id)).status, 'done');
    c.advance(60_000);
    assert.deepEqual(await q.claim('C', 1, 5000), [], 'a done job is claimed again');
  }));

test('a heartbeat keeps the lease; only the owner can extend it', () =>
  onQueue(async (q, c) => {
    const id = await q.enqueue({ kind: 'deploy' });
    await q.claim('A', 1, 5000);
    c.advance(4000);
    assert.equal(await q.heartbeat(id, 'A', 5000), true);
    assert.equal(await q.heartbeat(id, 'B', 5000), false);
    c.advance(4000); // 8 s after the claim: past the first lease, inside the extended one
    assert.deepEqual(await q.claim('B', 1, 5000), []);
    c.advance(1500);
    assert.equal((await q.claim('B', 1, 5000))[0]?.id, id);
  }));

test('the runner gives up on a failed outcome and retries a throwing handler later', async () => {
  const env = await stores(1);
  const store = env.opened[0];
  const q = new JobQueue(store.db, store.dialect, () => new Date());
  const runner = new JobRunner(q, capturingLogger('error').logger, { pollMs: 20, leaseMs: 5000 });
  try {
    runner.register('stop', async () => ({ failed: 'nothing can be done' }));
    runner.register('callback', async () => {
      throw new Error('receiver exploded');
    });
    runner.register('expire_checkout', async (): Promise<JobOutcome> => ({ failed: 'unused' }));
    const gaveUp = await q.enqueue({ kind: 'stop' });
    const threw = await q.enqueue({ kind: 'callback' });
    const unknown = await q.enqueue({ kind: 'cancel_subscription' });
    runner.start();
    await runner.idle();
    assert.deepEqual(await statusOf(store, gaveUp), {
      status: 'failed',
      attempts: 1,
      last_error: 'nothing can be done',
      locked_by: runner.owner,
    });
    const t = await statusOf(store, threw);
    assert.deepEqual([t.status, t.attempts, t.last_error, t.locked_by], ['pending', 1, 'receiver exploded', null]);
    const row = await store.db.selectFrom('jobs').select('run_at').where('id', '=', threw).executeTakeFirstOrThrow();
    assert.ok(Date.parse(row.run_at) > Date.now(), 'a throwing job must back off, not spin');
    assert.equal((await statusOf(store, unknown)).last_error, 'no handler for cancel_subscription');
  } finally {
    await runner.stop();
    await env.close();
  }
});

test('a handler slower than its lease keeps the job: the runner renews the lease, no other runner takes it', async () => {
  const env = await stores(2);
  const c = clock(Date.now());
  const LEASE = 300;
  const runs: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  const [a, b] = env.opened.map((store) => {
    const q = new JobQueue(store.db, store.dialect, c.now);
    const r = new JobRunner(q, capturingLogger('error').logger, { pollMs: 10, leaseMs: LEASE });
    r.register('stop', async () => {
      runs.push(r.owner);
      await held;
      return { done: true };
    });
    return { q, r };
  });
  const lockedUntil = async () =>
    Date.parse(
      (await env.opened[0]!.db.selectFrom('jobs').select('locked_until').executeTakeFirstOrThrow()).locked_until!,
    );
  try {
    await a!.q.enqueue({ kind: 'stop' });
    a!.r.start();
    await until('the first runner to start the job', () => runs.length === 1 || undefined, 10_000, 10);
    b!.r.start();
    // The test's clock moves two thirds of a lease at a time, each step only once the lease has been
    // renewed from the clock's new time: five steps are more than three leases, so a lease that was
    // not renewed would have lapsed, and the second runner (polling all along) would have run the job.
    for (let step = 0; step < 5; step++) {
      c.advance((2 * LEASE) / 3);
      const now = c.now().getTime();
      await until(
        `the lease renewed after step ${step + 1}`,
        async () => (await lockedUntil()) >= now + LEASE || undefined,
        10_000,
        10,
      );
    }
    assert.deepEqual(runs, [a!.r.owner], 'one run, by the runner that claimed it');
    release();
    await a!.r.idle();
    assert.equal(
      (await env.opened[0]!.db.selectFrom('jobs').select('status').executeTakeFirstOrThrow()).status,
      'done',
    );
  } finally {
    release();
    for (const x of [a, b]) await x!.r.stop();
    await env.close();
  }
});

test(`two runners on one ${DIALECT} database run each job exactly once`, async () => {
  const env = await stores(2);
  const runs = new Map<string, string[]>();
  const runners = env.opened.map((store) => {
    const q = new JobQueue(store.db, store.dialect, () => new Date());
    const r = new JobRunner(q, capturingLogger('error').logger, { pollMs: 10, leaseMs: 30_000, concurrency: 4 });
    r.register('callback', async (job) => {
      runs.set(job.id, [...(runs.get(job.id) ?? []), r.owner]);
      await new Promise((res) => setTimeout(res, 5));
      return { done: true };
    });
    return { q, r };
  });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 80; i++) ids.push(await runners[0].q.enqueue({ kind: 'callback', payload: { i } }));
    for (const { r } of runners) r.start();
    await until('every job run', () => runs.size >= ids.length || undefined, 60_000, 20);
    await Promise.all(runners.map(({ r }) => r.idle()));
    assert.equal(runs.size, ids.length);
    for (const id of ids) assert.equal(runs.get(id)?.length, 1, `job ${id} ran ${runs.get(id)?.length} times`);
    const done = await env.opened[0].db.selectFrom('jobs').select('id').where('status', '=', 'done').execute();
    assert.equal(done.length, ids.length);
    const owners = new Set([...runs.values()].flat());
    assert.equal(owners.size, 2, 'both runners should have taken a share');
  } finally {
    for (const { r } of runners) await r.stop();
    await env.close();
  }
});

test('a reconcile pass that read a deployment before its deploy finished queues no second deploy of that generation', async () => {
  const { ensureDeployJob } = await import('../src/deployments/ensure-deploy-job.js');
  const t = await stores(1);
  try {
    const store = t.opened[0]!;
    const c = clock();
    const jobs = new JobQueue(store.db, store.dialect, c.now);
    const s = { jobs, now: c.now, deployTimeoutMs: 60_000 };
    // What the pass read a moment ago: deploying, generation 3 (only id and generation matter here).
    const seen = { id: '7d7c2a4e-9a51-4c55-8f0e-3f1b9b6d2c11', generation: 3 } as Parameters<typeof ensureDeployJob>[1];
    assert.equal(await ensureDeployJob(s, seen), true, 'no job yet: one is queued');
    assert.equal(await ensureDeployJob(s, seen), false, 'a pending one counts');
    // Meanwhile the deploy ran and finished: the job is done, not pending.
    const [job] = await jobs.claim('runner-1', 1, 30_000);
    await jobs.complete(job!.id, 'runner-1');
    assert.equal(await ensureDeployJob(s, seen), false, 'a finished one of the same generation counts too');
    assert.equal(await ensureDeployJob(s, { ...seen, generation: 4 }), true, 'a new generation gets its own');
  } finally {
    await t.close();
  }
});
