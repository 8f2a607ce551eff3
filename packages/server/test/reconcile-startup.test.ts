// The one reconcile pass at start-up and after an agent host restart: the control plane answers
// while the pass creates the missing workers (readiness says how far it got), and a worker that
// appears while the pass runs is read again before it is removed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createApiKey, createLogger, createRuntime } from '../src/index.js';
import { harnessFor, type Harness } from './helpers/harness.js';
import { activeDeployment } from './helpers/api.js';
import { FakeWorkers } from './helpers/fake-workers.js';
import { until as poll } from './helpers/until.js';
import { defaultSettings } from '@berth/contracts/settings';
import { freshConfig } from './helpers/fresh-config.js';

const until = <T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000) =>
  poll(what, fn, timeoutMs, 25);

/**
 * The passes a harness starts with are over: the restoring one at start-up (on PostgreSQL it first
 * waits for the tables' statistics) and the first steady one, queued behind it and run once
 * `idle()` has resolved (the next is an hour away). Either, still running when a test empties the
 * host, creates the missing workers itself before the test's own pass.
 */
async function passesOver(h: Harness) {
  await h.runtime.idle();
  await h.runtime.reconciler.settled();
}

test('after an agent host restart, a worker whose deploy finished during the pass is kept (read again, not removed)', async (t) => {
  const h = await harnessFor(t, {}, { reconcileIntervalMs: 3_600_000 });
  const key = await h.key();
  const first = (await h.runtime.services.deployments.findById(await activeDeployment(h, key)))!;
  // The start-up passes are over first: a pass still running when the host's workers vanish
  // creates them itself (started 0 here, seen in CI twice).
  await passesOver(h);
  // The host restarted empty. While the pass runs (as it lists the host), another assistant's
  // deploy finishes: its worker is listed, but the pass's read of the store predates it.
  h.workers.workers.clear();
  let second: string | undefined;
  const list = h.workers.listWorkers.bind(h.workers);
  h.workers.listWorkers = async (page) => {
    h.workers.listWorkers = list;
    second = await activeDeployment(h, key);
    return list(page);
  };
  const counts = await h.runtime.reconciler.restore();
  const d = (await h.runtime.services.deployments.findById(second!))!;
  assert.equal(d.status, 'active');
  assert.ok(h.workers.workers.has(d.workerName), 'the worker of the assistant deployed meanwhile is still there');
  assert.ok(h.workers.workers.has(first.workerName), 'the worker the host lost is created again');
  assert.equal(counts.removed, 0);
  assert.equal(counts.started, 1);
  const status = await h.inject({ method: 'GET', url: `/api/v1/assistants/${d.id}`, headers: { 'x-api-key': key } });
  assert.equal(status.json().data.status, 'active');
});

test('after an agent host restart, each worker comes back with its own newest settings, not the defaults', async (t) => {
  const h = await harnessFor(t, {}, { reconcileIntervalMs: 3_600_000 });
  const key = await h.key();
  const [changed, untouched] = [await activeDeployment(h, key), await activeDeployment(h, key)];
  for (const systemPrompt of ['You are Ada.', 'You are Ada, a terse pirate.']) {
    const res = await h.inject({
      method: 'PUT',
      url: `/api/v1/assistants/${changed}/settings`,
      headers: { 'x-api-key': key },
      payload: { ...defaultSettings(), systemPrompt },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  await passesOver(h);
  h.workers.workers.clear();
  const counts = await h.runtime.reconciler.restore();
  assert.equal(counts.started, 2);
  const spec = (id: string) => h.workers.workers.get(`asst-${id}`)!;
  assert.equal(spec(changed).settings.systemPrompt, 'You are Ada, a terse pirate.', 'the newest of its versions');
  assert.deepEqual(spec(untouched).settings, defaultSettings());
});

test('after an agent host restart, a deployment started during the pass pushes no missing worker out of its page', async (t) => {
  // Pages of two narrow rows; while the first page's rows are read whole, another assistant is
  // deployed. Its id may sort inside that page: a whole read that re-read "the page" by position
  // would then end before the page's last narrow row, and that row's worker would not come back.
  const h = await harnessFor(t, {}, { reconcileIntervalMs: 3_600_000 });
  const key = await h.key();
  const lost: string[] = [];
  for (let i = 0; i < 4; i++) lost.push(await activeDeployment(h, key));
  const repo = h.runtime.services.deployments;
  const byIds = repo.wantingWorkersByIds.bind(repo);
  let added = 0;
  repo.wantingWorkersByIds = async (ids) => {
    // The first page: deployed until one sorts before the page's last row (ids are random).
    const last = [...ids].sort().at(-1)!;
    for (let below = false; added === 0 || (!below && added < 40); added++)
      below = (await activeDeployment(h, key)) < last;
    return byIds(ids);
  };
  h.workers.workers.clear();
  await h.runtime.reconciler.restore({ pageSize: 2 });
  for (const id of lost) assert.ok(h.workers.workers.has(`asst-${id}`), `the worker of ${id} is created again`);
});

test('start-up: the API answers while the missing workers are created, and readiness says so until they are', async () => {
  const { config, dataDir, db } = await freshConfig('berth-test-', {
    PUBLIC_BASE_URL: 'http://berth.test',
    LOG_LEVEL: 'warn',
  });
  const logger = createLogger('warn');
  // A first life: three active assistants.
  const before = new FakeWorkers();
  let rt = await createRuntime(config, { workers: before, logger, runner: { pollMs: 50, leaseMs: 5000 } });
  const ids: string[] = [];
  // Released in `finally` too: a failed assertion while the pass waits on the gate would otherwise
  // leave close() waiting on that pass for ever, and the file would never end.
  let release = () => {};
  try {
    const { key } = await createApiKey(
      { users: rt.services.users, secrets: rt.secrets, now: () => new Date() },
      'startup@example.com',
    );
    const h = { runtime: rt, inject: rt.app.inject.bind(rt.app) };
    for (let i = 0; i < 3; i++) ids.push(await activeDeployment(h as Parameters<typeof activeDeployment>[0], key));
    await rt.close();
    // The second life starts on a host that runs nothing yet and is slow to create workers.
    const workers = new FakeWorkers();
    workers.gate = new Promise<void>((r) => {
      release = r;
    });
    rt = await createRuntime(config, { workers, logger, runner: { pollMs: 50, leaseMs: 5000 } });
    await until('the pass to be creating workers', () => workers.createCalls > 0 || undefined);
    const during = rt.readiness();
    assert.equal(during.serving, true);
    assert.equal(during.workers.phase, 'restoring');
    assert.equal(during.workers.total, 3);
    assert.equal(during.workers.done, 0);
    const res = await rt.app.inject({
      method: 'GET',
      url: `/api/v1/assistants/${ids[0]}`,
      headers: { 'x-api-key': key },
    });
    assert.equal(res.statusCode, 200, 'the API answers before the workers are back');
    release();
    await rt.restored;
    const after = rt.readiness();
    assert.equal(after.workers.phase, 'restored');
    assert.equal(after.workers.done, 3);
    assert.equal(workers.workers.size, 3);
  } finally {
    release();
    await rt.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
