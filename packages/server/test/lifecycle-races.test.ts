// The races the lifecycle used to lose: a stop or delete that lands while createWorker is in flight,
// and a deploy that fails. Each must end with no worker running that the deployment does not want.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { activationBody, activeDeployment, getRecord, pay, purchase } from './helpers/api.js';
import { observe } from '../src/deployments/apply-change.js';
import { runDeployJob } from '../src/deployments/deploy-deployment.js';
import type { Job } from '../src/platform/store/jobs.js';
import { until } from './helpers/until.js';

const A = '/api/v1/assistants';
let h: Harness;
let key: string;
const hdr = () => ({ 'x-api-key': key });

async function activateHeld(extra: Record<string, unknown> = {}) {
  const { deploymentId, checkoutUrl } = await purchase(h, key, 'byok');
  await pay(h, checkoutUrl);
  let release!: () => void;
  h.workers.gate = new Promise((r) => {
    release = r;
  });
  const calls = h.workers.createCalls;
  const res = await h.inject({
    method: 'POST',
    url: `${A}/${deploymentId}/activate`,
    headers: hdr(),
    payload: activationBody('byok', extra),
  });
  assert.equal(res.statusCode, 200, res.body);
  await until('the deploy job to call createWorker', () => h.workers.createCalls !== calls || undefined, 10_000, 25);
  const workerName = `asst-${deploymentId}`;
  return {
    deploymentId,
    workerName,
    release: () => {
      h.workers.gate = undefined;
      release();
    },
  };
}

/** A control plane and a key of its own for the enclosing describe block. */
function withHarness() {
  before(async () => {
    ({ h, key } = await startHarnessWithKey());
  });
  after(async () => {
    await h.close();
  });
}

describe('lifecycle races', () => {
  withHarness();

  test('stop while createWorker is in flight: stopped, and no worker once the create finishes', async () => {
    const { deploymentId, workerName, release } = await activateHeld();
    const res = await h.inject({ method: 'POST', url: `${A}/${deploymentId}/stop`, headers: hdr() });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'stopped');
    release();
    await h.runtime.idle();
    assert.equal(h.workers.workers.has(workerName), false, 'the worker outlived the stop');
    assert.equal((await getRecord(h, key, deploymentId)).status, 'stopped');
  });

  test('delete while createWorker is in flight: 404 afterwards, and no worker once the create finishes', async () => {
    const { deploymentId, workerName, release } = await activateHeld();
    const res = await h.inject({ method: 'DELETE', url: `${A}/${deploymentId}`, headers: hdr() });
    assert.equal(res.statusCode, 200, res.body);
    release();
    await h.runtime.idle();
    assert.equal(h.workers.workers.has(workerName), false, 'the worker outlived the delete');
    assert.equal((await h.inject({ method: 'GET', url: `${A}/${deploymentId}`, headers: hdr() })).statusCode, 404);
  });

  test('a failed deploy leaves no worker behind', async () => {
    h.workers.health = { ready: false, failed: true, reason: 'Telegram rejected the bot token (401 Unauthorized).' };
    try {
      const { deploymentId, workerName, release } = await activateHeld();
      release();
      await h.runtime.idle();
      const rec = await getRecord(h, key, deploymentId);
      assert.equal(rec.status, 'failed');
      assert.match(rec.statusMessage, /^Deploy failed: Telegram rejected the bot token/);
      assert.equal(rec.workerUrl, null);
      assert.equal(h.workers.workers.has(workerName), false, 'the failed deploy left its worker running');
    } finally {
      h.workers.health = { ready: true, failed: false, reason: null };
    }
  });

  test('stops racing a deploy that finishes: every one answers 200, never 409, and no worker remains', async () => {
    const { deploymentId, workerName, release } = await activateHeld();
    const stops = Array.from({ length: 4 }, () =>
      h.inject({ method: 'POST', url: `${A}/${deploymentId}/stop`, headers: hdr() }),
    );
    release();
    for (const res of await Promise.all(stops)) assert.equal(res.statusCode, 200, res.body);
    await h.runtime.idle();
    assert.equal(h.workers.workers.has(workerName), false);
    assert.equal((await getRecord(h, key, deploymentId)).status, 'stopped');
  });

  test('stop and delete are idempotent', async () => {
    const { deploymentId, release } = await activateHeld();
    release();
    await h.runtime.idle();
    for (let i = 0; i < 2; i++) {
      const res = await h.inject({ method: 'POST', url: `${A}/${deploymentId}/stop`, headers: hdr() });
      assert.equal(res.statusCode, 200, res.body);
    }
    assert.equal((await h.inject({ method: 'DELETE', url: `${A}/${deploymentId}`, headers: hdr() })).statusCode, 200);
    assert.equal((await h.inject({ method: 'DELETE', url: `${A}/${deploymentId}`, headers: hdr() })).statusCode, 404);
  });
});

describe('stop and redeploy racing', () => {
  withHarness();

  test('45 concurrent stop/redeploy pairs: never a 500, every answer the settled state or its 409', async () => {
    const { deploymentId } = await activateHeld().then(async (x) => {
      x.release();
      await h.runtime.idle();
      return x;
    });
    const logsBefore = h.logs.length;
    const stops = Array.from({ length: 45 }, () =>
      h.inject({ method: 'POST', url: `${A}/${deploymentId}/stop`, headers: hdr() }),
    );
    const redeploys = Array.from({ length: 45 }, () =>
      h.inject({ method: 'POST', url: `${A}/${deploymentId}/redeploy`, headers: hdr(), payload: {} }),
    );
    const stopAnswers = await Promise.all(stops);
    const redeployAnswers = await Promise.all(redeploys);
    for (const res of stopAnswers) assert.equal(res.statusCode, 200, res.body);
    for (const res of redeployAnswers) {
      assert.ok(res.statusCode === 200 || res.statusCode === 409, `${res.statusCode} ${res.body}`);
      if (res.statusCode === 409) assert.equal(res.json().error.code, 'INVALID_STATE');
    }
    assert.ok(!h.logs.slice(logsBefore).some((l) => /"statusCode":500/.test(l)));
    await h.runtime.idle();
    const final = await getRecord(h, key, deploymentId);
    // Whichever call landed last decides: a stop leaves it stopped, a redeploy deploys it again and,
    // its deploy job run by idle(), active. Either way the worker matches the record.
    assert.ok(['stopped', 'running', 'deploying', 'active'].includes(final.status), final.status);
    if (final.status === 'active') assert.equal(h.workers.workers.has(final.workerName), true);
    if (final.status === 'stopped') assert.equal(h.workers.workers.has(final.workerName), false);
  });
});

describe('a deploy job run twice at once', () => {
  withHarness();
  // Its lease lapsed while createWorker was slow and the runner started it again: the second run
  // made the deployment active while the first still held a view of it as deploying. The first
  // run's "starting" must not land on the active deployment (the crash test saw one stay active
  // with its worker "starting" for good, seed 439254).
  test("the late run's observation does not mark an active deployment starting", async () => {
    const id = await activeDeployment(h, key);
    const now = (await h.runtime.services.deployments.findById(id))!;
    assert.equal(now.status, 'active');
    const stale = { ...now, status: 'deploying' as const, observed: 'absent' as const };
    assert.equal(await observe(h.runtime.services, stale, 'starting'), undefined, 'no write');
    const after = (await h.runtime.services.deployments.findById(id))!;
    assert.deepEqual([after.status, after.observed], ['active', 'ready']);
  });

  test('both runs reach the end: the deployment becomes active once, and its owner is told once', async () => {
    const { deploymentId, release } = await activateHeld({ callbackUrl: 'https://hooks.example.com/berth' });
    const db = h.runtime.store.db;
    const row = await db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'deploy')
      .where('deployment_id', '=', deploymentId)
      .executeTakeFirstOrThrow();
    // The runner's run waits in createWorker; a second run of the same job (as a replica that found
    // its lease lapsed would start) reads the deployment as deploying too, and waits there as well.
    const job: Job<'deploy'> = {
      id: row.id,
      kind: 'deploy',
      deploymentId,
      generation: Number(row.generation),
      payload: JSON.parse(row.payload),
      attempts: Number(row.attempts),
    };
    const calls = h.workers.createCalls;
    const second = runDeployJob(h.runtime.services, job, {
      owner: 'another-replica',
      signal: new AbortController().signal,
    });
    await until('the second run to call createWorker', () => h.workers.createCalls > calls || undefined, 10_000, 25);
    release();
    assert.deepEqual(await second, { done: true });
    await h.runtime.runner.idle();
    assert.equal((await getRecord(h, key, deploymentId)).status, 'active');
    const told = await db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', 'callback')
      .where('deployment_id', '=', deploymentId)
      .execute();
    const statuses = told.map((t) => JSON.parse(t.payload).event.data.status);
    assert.deepEqual(statuses, ['deploying', 'active'], 'each status change is called back once');
  });
});
