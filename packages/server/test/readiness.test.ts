// GET /readyz (DESIGN §7.5): 200 with every check "ok" when the store answers, the workers backend
// is reachable and the job runner is alive; 503 naming the failing check otherwise, never a hang.
// /healthz stays liveness: it answers 200 whatever the dependencies do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, type Harness } from './helpers/harness.js';
import { openStore } from '../src/platform/store/database.js';
import { checkReadiness } from '../src/ops/readiness.js';
import { until } from './helpers/until.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => h.close());

const readyz = async () => {
  const res = await h.inject({ method: 'GET', url: '/readyz' });
  return { status: res.statusCode, body: res.json() };
};

test('ready: every check is ok, and the start-up pass says it restored every worker', async () => {
  await h.runtime.restored;
  assert.deepEqual(await readyz(), {
    status: 200,
    body: {
      ok: true,
      checks: { store: 'ok', workers: 'ok', jobs: 'ok' },
      restore: { phase: 'restored', done: 0, total: 0 },
    },
  });
});

/** Runs `check` while the workers backend's list call fails the way `fault` says. */
async function whileWorkersFail(fault: 'unreachable' | 'hang', check: () => Promise<void>) {
  h.workers.listFault = fault;
  try {
    await check();
  } finally {
    h.workers.listFault = undefined;
  }
}

test('an unreachable workers backend: 503 naming it, /healthz still 200', () =>
  whileWorkersFail('unreachable', async () => {
    const r = await readyz();
    assert.equal(r.status, 503);
    assert.deepEqual(r.body.failing, ['workers']);
    assert.equal(r.body.ok, false);
    assert.equal(r.body.checks.store, 'ok');
    assert.match(r.body.checks.workers, /workers backend failed/);
    assert.equal((await h.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  }));

test('a workers backend that never answers: 503 within the deadline, not a hang', () =>
  whileWorkersFail('hang', async () => {
    const r = await readyz();
    assert.equal(r.status, 503);
    assert.deepEqual(r.body.failing, ['workers']);
    assert.match(r.body.checks.workers, /did not answer within 2000 ms/);
    // A steady pass that lists while the backend hangs waits with it, and ends once the backend
    // answers (here: fails) again; closing the harness (after) must not wait on it for ever.
    // Two calls wait: the readiness check's, and a pass's (this one, or one the interval began).
    h.runtime.reconciler.nudge();
    await until('a steady pass to be listing', () => h.workers.hangingLists >= 2 || undefined, 5_000, 10);
  }));

test('a database that does not answer fails the store check', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-ready-'));
  const store = await openStore({ dataDir: dir });
  await store.close();
  const r = await checkReadiness({
    store,
    workers: { listWorkers: async () => ({ names: [] }) },
    runner: { alive: () => true },
    log: h.runtime.services.log,
  });
  rmSync(dir, { recursive: true, force: true });
  assert.equal(r.ok, false);
  assert.deepEqual(r.failing, ['store']);
  assert.equal(r.checks.store, 'the database failed');
});

test("a backend with its own reachability proof is asked that, not a list; its failure is the workers check's", async () => {
  let lists = 0;
  let reachable: () => Promise<void> = async () => {};
  const check = () =>
    checkReadiness({
      store: h.runtime.store,
      workers: {
        listWorkers: async () => {
          lists++;
          return { names: [] };
        },
        reachable: () => reachable(),
      },
      runner: { alive: () => true },
      log: h.runtime.services.log,
    });
  const first = await check();
  assert.equal(first.ok, true, JSON.stringify(first));
  reachable = async () => {
    throw new Error('namespaces "workers" not found');
  };
  const r = await check();
  assert.equal(r.ok, false);
  assert.deepEqual(r.failing, ['workers']);
  assert.equal(r.checks.workers, 'the workers backend failed');
  assert.equal(lists, 0, 'no list asked of a backend that can prove itself cheaper');
});

// Last: it stops the runner of the shared harness.
test('a stopped job runner: 503 naming jobs', async () => {
  await h.runtime.runner.stop();
  const r = await readyz();
  assert.equal(r.status, 503);
  assert.deepEqual(r.body.failing, ['jobs']);
  assert.equal(r.body.checks.jobs, 'the job runner is not running');
});

test('GET /api/version names the version and the source commit', async () => {
  const res = await h.inject({ method: 'GET', url: '/api/version' });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['commit', 'version']);
  assert.match(body.version, /^\d+\.\d+\.\d+/);
  // This checkout is a git work tree: the commit is known.
  assert.match(body.commit, /^[0-9a-f]{40}$/);
});
