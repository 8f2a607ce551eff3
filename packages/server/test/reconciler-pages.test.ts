// The reconciler over a backend listed a page at a time (issue 30), with the real local agent host
// answering GET /agents pages over its socket, two names a page: a pass sees every page.
import { defaultSettings } from '@berth/contracts/settings';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reconcilePass } from '../src/reconciler/reconcile-pass.js';
import { DesiredIndex } from '../src/reconciler/desired-index.js';
import { pruneOwnHost } from '../src/reconciler/prune-own-host.js';
import { buildWorkerSpec } from '../src/workers/spec.js';
import { workerPages } from '../src/workers/port.js';
import { startE2E, type E2E } from './helpers/e2e.js';
import { until as poll } from './helpers/until.js';

const PAGE = 2;
/** Names after any uuid: the strays sit on the last pages. */
const STRAYS = [1, 2, 3, 4].map((i) => `asst-ffffffff-ffff-4fff-bfff-00000000000${i}`);

/** Four live assistants, one worker of them gone, four strays: seven workers, four pages of two. */
async function setUp() {
  const e = await startE2E({}, { reconcileIntervalMs: 3_600_000 });
  const s = e.runtime.services;
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const bot = `74000003${i}0:AAreconcilerPagesToken_${i}_abcdefghij`;
    e.tg.addBot(bot);
    ids.push(await e.activate(bot));
  }
  for (const id of ids) assert.equal((await e.waitForStatus(id, ['active', 'failed'])).status, 'active');
  const live = await Promise.all(ids.map(async (id) => (await s.deployments.findById(id))!));
  // The start-up's passes are done before the host is changed behind them: on a busy machine its
  // first steady pass came after the first strays and removed them (CI: 2 removed where 4 were due).
  await e.runtime.reconciler.settled();
  for (const [i, name] of STRAYS.entries()) {
    const bot = `74000004${i}0:AAreconcilerPagesStray_${i}_abcdefghij`;
    e.tg.addBot(bot);
    const spec = buildWorkerSpec(s, { ...live[0]!, status: 'active' }, defaultSettings());
    await s.workers.createWorker({
      ...spec,
      workerName: name,
      deploymentId: name.slice(5),
      channels: [{ type: 'telegram', botToken: bot }],
    });
  }
  // The one in the middle of the order vanishes behind Berth.
  const vanished = [...live].sort((a, b) => (a.workerName < b.workerName ? -1 : 1))[1]!;
  assert.equal(await s.workers.deleteWorker(vanished.workerName), 'deleted');
  const workers = s.workers;
  const list = workers.listWorkers.bind(workers);
  const pages: string[][] = [];
  workers.listWorkers = async (page = {}) => {
    const r = await list({ ...page, limit: PAGE });
    pages.push(r.names);
    return r;
  };
  const created: string[] = [];
  const create = workers.createWorker.bind(workers);
  workers.createWorker = async (spec) => {
    created.push(spec.workerName);
    return create(spec);
  };
  const listed = async () => {
    const all = new Set<string>();
    for (let next: string | undefined, first = true; first || next !== undefined; first = false) {
      const r = await list({ cursor: next });
      for (const n of r.names) all.add(n);
      next = r.next;
    }
    return all;
  };
  return { e, live, vanished, pages, created, listed };
}

async function check(
  e: E2E,
  t: Awaited<ReturnType<typeof setUp>>,
  pass: () => Promise<{ removed: number }>,
  how: 'steady' | 'restore',
) {
  const counts = await pass();
  const now = await t.listed();
  for (const name of STRAYS) assert.ok(!now.has(name), `${name} is gone (the last pages' strays too)`);
  assert.equal(counts.removed, STRAYS.length);
  if (how === 'restore') {
    assert.deepEqual(t.created, [t.vanished.workerName], 'only the vanished worker is created again');
    assert.ok(now.has(t.vanished.workerName));
  } else {
    // A steady pass sends it back to deploying; its job creates it again.
    await e.waitForStatus(t.vanished.id, ['active']);
    await until(async () => (await t.listed()).has(t.vanished.workerName));
    assert.deepEqual(t.created, [t.vanished.workerName], 'the workers listed on later pages were left alone');
  }
  for (const d of t.live) {
    if (d.id === t.vanished.id) continue;
    assert.ok(now.has(d.workerName), `${d.workerName} still runs`);
    assert.equal((await e.runtime.services.deployments.findById(d.id))!.status, 'active');
  }
  assert.ok(t.pages.length >= 4, `the pass read every page (${t.pages.length})`);
  assert.ok(
    t.pages.every((p) => p.length <= PAGE),
    'no page over the limit',
  );
}

const until = (cond: () => Promise<boolean>, ms = 15_000) =>
  poll('the condition', async () => (await cond()) || undefined, ms);

test('a steady pass over four pages: the strays of the last page go, the vanished worker comes back', async () => {
  const t = await setUp();
  try {
    await check(t.e, t, () => reconcilePass(t.e.runtime.services, new DesiredIndex()), 'steady');
  } finally {
    await t.e.close();
  }
});

test('a restoring pass over four pages creates only the vanished worker and removes the strays', async () => {
  const t = await setUp();
  try {
    await check(t.e, t, () => t.e.runtime.reconciler.restore(), 'restore');
  } finally {
    await t.e.close();
  }
});

test("pruning this replica's host walks every page", async () => {
  const t = await setUp();
  try {
    const removed = await pruneOwnHost(t.e.runtime.services);
    const now = await t.listed();
    for (const name of STRAYS) assert.ok(!now.has(name), `${name} is gone (the last pages' strays too)`);
    assert.equal(now.size, 3, 'the live workers stay');
    assert.equal(removed, STRAYS.length);
    assert.ok(t.pages.length >= 4, `every page was read (${t.pages.length})`);
  } finally {
    await t.e.close();
  }
});

test('a backend that hands back the cursor it was given is an error, not a walk for ever', async () => {
  const stuck = { listWorkers: async () => ({ names: ['asst-a'], next: 'asst-a' }) };
  const seen: string[][] = [];
  await assert.rejects(async () => {
    for await (const names of workerPages(stuck)) {
      seen.push(names);
      assert.ok(seen.length < 5, 'the walk stops');
    }
  }, /repeated the list cursor/);
  assert.equal(seen.length, 2);
});

test('a list that lags (a watched copy, not yet told of a create) does not make a running worker look vanished: it is read by name', async () => {
  const e = await startE2E({}, { reconcileIntervalMs: 3_600_000 });
  try {
    const bot = '7400000590:AAreconcilerLaggingListToken_abcdefghij';
    e.tg.addBot(bot);
    const id = await e.activate(bot);
    assert.equal((await e.waitForStatus(id, ['active', 'failed'])).status, 'active');
    const s = e.runtime.services;
    const d = (await s.deployments.findById(id))!;
    // The copy has not seen this worker yet; the backend, asked by name, runs it.
    s.workers.listWorkers = async () => ({ names: [] });
    const asked: string[] = [];
    s.workers.stillRuns = async (name) => {
      asked.push(name);
      return true;
    };
    const counts = await reconcilePass(s, new DesiredIndex());
    assert.deepEqual(asked, [d.workerName]);
    assert.equal(counts.vanished, 0);
    assert.equal((await s.deployments.findById(id))!.status, 'active');
    // The read by name fails (the API down, a Role without get): left to the next pass, counted,
    // and said.
    s.workers.stillRuns = async () => {
      throw new Error('deployments "asst-x" is forbidden');
    };
    const warned: string[] = [];
    const log = Object.assign(Object.create(s.log), { warn: (_o: object, msg: string) => warned.push(msg) });
    const unread = await reconcilePass({ ...s, log }, new DesiredIndex());
    assert.equal(unread.vanished, 0);
    assert.equal(unread.unconfirmed, 1);
    assert.equal(warned.length, 1);
    assert.match(warned[0]!, /left to the next pass/);
    assert.equal((await s.deployments.findById(id))!.status, 'active');
    // Asked by name, gone: vanished after all.
    s.workers.stillRuns = async () => false;
    assert.equal((await reconcilePass(s, new DesiredIndex())).vanished, 1);
  } finally {
    await e.close();
  }
});

// A steady pass finds what to look closer at part by part (reconcile-pass.ts, lookCloser): the
// entries its list did not show, and the deploying ones, whatever else the list showed.
test('a live worker listed on two pages does not hide a vanished one from a steady pass', async () => {
  const t = await setUp();
  try {
    const s = t.e.runtime.services;
    const kept = t.live.filter((d) => d.id !== t.vanished.id).map((d) => d.workerName);
    // Four wanted, three listed, one of them twice: four sightings, three entries.
    const list = s.workers.listWorkers.bind(s.workers);
    s.workers.listWorkers = async (page = {}) => {
      const r = await list(page);
      return page.cursor ? r : { ...r, names: [...r.names, kept[kept.length - 1]!] };
    };
    const counts = await reconcilePass(s, new DesiredIndex());
    assert.equal(counts.vanished, 1, 'the vanished worker is found');
    // Sent back to deploying; its job creates it again.
    await until(async () => (await t.listed()).has(t.vanished.workerName));
  } finally {
    await t.e.close();
  }
});

test('a deploying assistant whose worker is listed still gets its deploy job from a steady pass', async () => {
  const t = await setUp();
  try {
    const s = t.e.runtime.services;
    // Every wanted worker listed (the vanished one's name too), and one of them deploying with no
    // job of its generation (a job lost with its database row, say).
    const list = s.workers.listWorkers.bind(s.workers);
    s.workers.listWorkers = async (page = {}) => {
      const r = await list(page);
      return page.cursor ? r : { ...r, names: [...r.names, t.vanished.workerName] };
    };
    const d = t.live.find((x) => x.id !== t.vanished.id)!;
    const now = (await s.deployments.findById(d.id))!;
    assert.ok(await s.deployments.update(d.id, now.generation, { status: 'deploying' }, { bumpGeneration: true }));
    assert.equal(await s.jobs.existsFor(d.id, 'deploy', now.generation + 1), false);
    const counts = await reconcilePass(s, new DesiredIndex());
    assert.equal(counts.resumed, 1, 'its deploy job is queued');
    assert.equal(counts.vanished, 0);
    assert.equal(await s.jobs.existsFor(d.id, 'deploy', now.generation + 1), true);
  } finally {
    await t.e.close();
  }
});
