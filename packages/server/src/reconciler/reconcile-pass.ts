// One pass of the level-triggered reconciler: what the store wants next to what the workers
// backend runs. Active assistants whose worker is gone go back to `deploying` (through the state
// machine, with a deploy job), or, in a restoring pass (start-up, an agent host that restarted
// empty), get their worker created again at once, a few at a time; `deploying` ones get a deploy
// job if none is pending; a worker no live deployment wants (the orphan of a stop or delete
// racing a deploy, a failed deploy's worker) is deleted after its deployment is read again, with
// its users' data when the deployment itself is gone (deleted). A steady pass brings the
// DesiredIndex up to date before it lists the backend (a page at a time), so a worker created by a deploy job that
// has just marked its deployment active is always in the list, and re-reads a deployment before
// acting on it. Every pass yields to the event loop every few milliseconds.
import type { Deployment } from '../domain/deployment.js';
import { wantsWorker } from '../domain/lifecycle.js';
import { buildWorkerSpec, type SpecDeps } from '../workers/spec.js';
import type { McpServerConfig } from '@berth/contracts/mcp';
import { mcpServersForWorkers } from '../mcp/mcp-verbs.js';
import { channelsForWorker } from '../channels/worker-channels.js';
import { currentSettingsOf, type SettingsVersion } from '../settings/current-settings.js';
import { type RestartDeps, restartVanished } from './restart-vanished.js';
import { ensureDeployJob } from '../deployments/ensure-deploy-job.js';
import { type SaveDeps, saveDeployment } from '../deployments/save-deployment.js';
import type { Services } from '../services.js';
import { type DesiredIndex, idOf, type Wanted } from './desired-index.js';
import { slicer, type Slicer } from '../platform/yield-now.js';
import { deletedForGood } from './deleted-for-good.js';
import { removalsUnderway } from '../workers/remove-worker.js';
import { workerPages } from '../workers/port.js';
import { SplitMap } from '../platform/split-map.js';

export interface PassCounts {
  vanished: number;
  resumed: number;
  removed: number;
  /** Restoring passes: workers created again directly, and those that refused (sent to deploying). */
  started: number;
  failed: number;
  /** Workers missing from the list whose read by name failed: left to the next pass, not restarted. */
  unconfirmed: number;
  /** The longest the pass held the event loop between two yields (wall clock and CPU, ms). */
  longestBlockMs: number;
  longestBlockCpuMs: number;
}

export interface PassOptions {
  /** Create missing workers directly (start-up, agent host restart) instead of redeploying them. */
  restore?: boolean;
  /** Workers created at once in a restoring pass. */
  concurrency?: number;
  /** Told how far a restoring pass has got (readiness). */
  progress?: (done: number, total: number) => void;
  /** Stops the pass early (the control plane is closing). */
  signal?: AbortSignal;
  /** Narrow rows a restoring pass reads at a time (RESTORE_PAGE; smaller in tests). */
  pageSize?: number;
}

const RESTORE_CONCURRENCY = 16;
/** Narrow rows a restoring pass reads at a time (on SQLite a read is one unsliced stretch). */
const RESTORE_PAGE = 250;

/** What a pass reads and acts with: the store's deployments, the workers backend, and its verbs' own. */
export type PassDeps = Pick<Services, 'db' | 'deployments' | 'workers' | 'log' | 'now'> &
  SpecDeps &
  RestartDeps &
  SaveDeps;

export async function reconcilePass(s: PassDeps, index: DesiredIndex, opts: PassOptions = {}): Promise<PassCounts> {
  const counts: PassCounts = {
    vanished: 0,
    resumed: 0,
    removed: 0,
    started: 0,
    failed: 0,
    unconfirmed: 0,
    longestBlockMs: 0,
    longestBlockCpuMs: 0,
  };
  const slice = slicer();
  if (opts.restore) await restore(s, index, opts, counts, slice);
  else await steady(s, index, opts, counts, slice);
  slice.end();
  counts.longestBlockMs = slice.longestMs;
  counts.longestBlockCpuMs = slice.longestCpuMs;
  if (opts.restore || counts.vanished || counts.resumed || counts.removed || counts.unconfirmed)
    s.log.info({ ...counts, restore: Boolean(opts.restore) }, 'workers reconciled');
  return counts;
}

/**
 * Steady state: the index brought up to date (only what changed, mostly), the backend listed,
 * and a closer look only at what differs.
 */
async function steady(s: PassDeps, index: DesiredIndex, opts: PassOptions, counts: PassCounts, slice: Slicer) {
  await index.refresh(s.deployments, s.now(), false, slice);
  const pass = ++index.passes;
  // A set: a backend may list a name on two pages.
  const strays = new Set<string>();
  for await (const names of listedPages(s, slice)) {
    // Indexed, not for…of: this function runs once a pass, so it stays unoptimized, where each
    // step of an array's iterator is a result object (100,000 a pass, most of its garbage).
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const w = index.wanted.get(name);
      if (w) w.seen = pass;
      else strays.add(name);
      const y = slice();
      if (y) await y;
    }
    await slice(true);
  }
  await lookCloser(s, index, pass, opts, counts, slice);
  await removeStrays(s, index, strays, opts, counts, slice);
}

/**
 * The index's entries this pass's list did not show, and the deploying ones: each read again, then
 * acted on. Found first, a part of the index at a time with a callback: the idle pass at 100,000
 * finds none, and walking the index as an iterator (an entry array and a generator step each) made
 * garbage enough to keep V8 from giving back the start-up pass's heap (docs/decisions/0027-scale.md,
 * round 17).
 */
async function lookCloser(
  s: PassDeps,
  index: DesiredIndex,
  pass: number,
  opts: PassOptions,
  counts: PassCounts,
  slice: Slicer,
) {
  const closer: string[] = [];
  const find = (w: Wanted, name: string) => {
    if (w.status === 'deploying' || w.seen !== pass) closer.push(name);
  };
  for (let part = 0; part < index.wanted.partCount; part++) {
    index.wanted.forEachIn(part, find);
    const y = slice(true);
    if (y) await y;
  }
  // Only what acts on an entry below changes it (a pass at a time writes the index).
  for (const name of closer) {
    const w = index.wanted.get(name);
    if (!w) continue;
    const y = slice();
    if (y) await y;
    if (opts.signal?.aborted) break;
    // Look closer: the deployment as it is now.
    const d = await slice.across(s.deployments.findById(idOf(name, w)));
    if (!d || !wantsWorker(d.desired)) {
      index.wanted.delete(name);
      continue;
    }
    const changed = d.generation !== w.generation || d.status !== w.status;
    index.apply(d);
    if (d.status === 'deploying') {
      if (await ensureDeployJob(s, d)) counts.resumed++;
      continue;
    }
    // Written since the index was read (a deploy that finished meanwhile): the list taken after
    // that read may miss its worker; the next pass decides.
    if (changed) continue;
    // Another replica's agent host on this machine runs it (local backend, several replicas).
    if (d.workerUrl && (await s.workers.runsElsewhere?.(d.workerUrl))) continue;
    // A list answered from a watched copy may lag a create another replica has just made. A read
    // that fails leaves the worker to the next pass: not known gone is not gone. It is counted and
    // said once a pass, or an API that keeps refusing the read (a Role without get) would stop
    // vanished workers coming back without a word.
    if (s.workers.stillRuns) {
      const runs = await slice.across(
        s.workers.stillRuns(name).catch((err: Error) => {
          if (counts.unconfirmed++ === 0)
            s.log.warn(
              { worker: name, err: err.message },
              'could not read a worker missing from the list: it is left to the next pass (see the count in "workers reconciled")',
            );
          return true;
        }),
      );
      if (runs) continue;
    }
    // A stop or delete removing it ahead of its save: gone, but not vanished.
    if ((await slice.across(removalsUnderway(s))).has(d.id)) continue;
    if (await restartVanished(s, d, 'it was no longer running')) counts.vanished++;
  }
}

/**
 * The backend's list a page at a time, each page's fetch a boundary of the pass's slices: it is a
 * call over the network (the agent host, the Kubernetes API), during which requests and other
 * background work run, and that is not the pass holding the event loop.
 */
async function* listedPages(s: Pick<PassDeps, 'workers'>, slice: Slicer) {
  const pages = workerPages(s.workers)[Symbol.asyncIterator]();
  for (;;) {
    const page = await slice.across(pages.next());
    if (page.done) return;
    yield page.value;
  }
}

/**
 * Restoring (start-up, an agent host that restarted empty): the backend listed, then the desired
 * state read in pages of narrow rows; a page with a row to act on (its worker missing, or it is
 * deploying) has those rows read whole by id, in one read, and the settings of its missing workers
 * in one more (a worker spec needs every column; a read a row would be a round trip each on
 * PostgreSQL). A missing worker is created at once, a few at a time. A row that turned active
 * after the list is created again too, which the port allows (create or replace). The pages
 * rebuild the index.
 */
async function restore(s: PassDeps, index: DesiredIndex, opts: PassOptions, counts: PassCounts, slice: Slicer) {
  const at = s.now();
  const total = await slice.across(s.deployments.countWantingWorkers());
  let done = 0;
  opts.progress?.(0, total);
  // Split: a Set or Map of 100,000 names doubles in one unsliced step (split-map.ts). Each name
  // maps to itself: the index below is keyed by the listed string, so the index and the backend's
  // own set (the watched set) hold one string per worker, not two (6 MB at 100,000).
  const observed = new SplitMap<string>();
  for await (const names of listedPages(s, slice)) {
    for (const name of names) {
      observed.set(name, name);
      const y = slice();
      if (y) await y;
    }
    await slice(true);
  }
  const wanted = new SplitMap<Wanted>();
  const limit = opts.concurrency ?? RESTORE_CONCURRENCY;
  const pageSize = opts.pageSize ?? RESTORE_PAGE;
  const inFlight = new Set<Promise<void>>();
  const create = async (d: Deployment, settings: SettingsVersion, mcp: McpServerConfig[] = []) => {
    try {
      const attached = await channelsForWorker(s, d.id);
      const { workerUrl } = await s.workers.createWorker(buildWorkerSpec(s, d, settings.settings, mcp, attached));
      if (workerUrl !== d.workerUrl) await saveDeployment(s, d, { workerUrl }, { quiet: true });
      counts.started++;
    } catch (err) {
      // A host that is coming back (a restarted pod, a restarting agent host) refuses for a moment.
      counts.failed++;
      await restartVanished(s, d, `it could not be started again at once (${(err as Error).message})`);
    } finally {
      opts.progress?.(++done, total);
    }
  };
  for (let after = ''; !opts.signal?.aborted; ) {
    // Narrow rows: after a restart with its workers intact (the usual case) a pass needs nothing
    // more.
    const page = await slice.across(s.deployments.pageWantingWorkers(after, pageSize));
    const act = new Set<string>();
    for (const r of page) {
      const y = slice();
      if (y) await y;
      if (opts.signal?.aborted) break;
      const listed = observed.get(r.workerName);
      wanted.set(listed ?? r.workerName, index.entry(r));
      if (r.status !== 'deploying' && listed !== undefined) {
        opts.progress?.(++done, total);
        continue;
      }
      act.add(r.id);
    }
    const missing: Deployment[] = [];
    const whole = act.size > 0 ? await slice.across(s.deployments.wantingWorkersByIds([...act])) : [];
    for (const d of whole) {
      if (!act.delete(d.id)) continue;
      const y = slice();
      if (y) await y;
      if (opts.signal?.aborted) break;
      if (!wantsWorker(d.desired)) {
        opts.progress?.(++done, total);
        continue;
      }
      if (d.status === 'deploying') {
        if (await ensureDeployJob(s, d)) counts.resumed++;
        opts.progress?.(++done, total);
        continue;
      }
      if (observed.has(d.workerName) || (d.workerUrl && (await s.workers.runsElsewhere?.(d.workerUrl)))) {
        opts.progress?.(++done, total);
        continue;
      }
      missing.push(d);
    }
    // Rows that stopped wanting a worker (or went) between the two reads: nothing to start.
    for (const _ of act) opts.progress?.(++done, total);
    // A stop or delete on another replica between its removal and its save: not to start again
    // (one read of the marks a page, and only when a page has a worker to start).
    const removing = missing.length > 0 ? await slice.across(removalsUnderway(s)) : undefined;
    const toStart = removing?.size ? missing.filter((d) => !removing.has(d.id)) : missing;
    for (let i = toStart.length; i < missing.length; i++) opts.progress?.(++done, total);
    const settings = await slice.across(currentSettingsOf(s, toStart));
    const mcp = await slice.across(
      mcpServersForWorkers(
        s,
        toStart.map((d) => d.id),
      ),
    );
    for (const d of toStart) {
      // Each step builds a worker spec and starts a create: the clock is looked at every time.
      await slice(true);
      if (opts.signal?.aborted) break;
      while (inFlight.size >= limit) await slice.across(Promise.race(inFlight));
      const p = create(d, settings.get(d.id)!, mcp.get(d.id)).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    if (page.length < pageSize) break;
    after = page[page.length - 1]!.id;
    await slice(true);
  }
  await Promise.all(inFlight);
  if (opts.signal?.aborted) return;
  index.replace(wanted, at);
  const strays: string[] = [];
  for (const [name] of observed) {
    if (!wanted.has(name)) strays.push(name);
    const y = slice();
    if (y) await y;
  }
  await removeStrays(s, index, strays, opts, counts, slice);
}

/** Workers no deployment in the index wants: each one's deployment read again, then removed. */
async function removeStrays(
  s: PassDeps,
  index: DesiredIndex,
  strays: Iterable<string>,
  opts: PassOptions,
  counts: PassCounts,
  slice: Slicer,
) {
  for (const name of strays) {
    if (opts.signal?.aborted) break;
    await slice(true);
    // Read again: a deploy may have started after the index was brought up to date.
    const id = name.replace(/^asst-/, '');
    const d = await slice.across(s.deployments.findById(id));
    if (d && wantsWorker(d.desired)) {
      index.apply(d);
      continue;
    }
    try {
      // Deleted by its owner (a deploy racing the delete left this worker): its users' data goes
      // too, as the delete's own removal purges it. A stopped deployment's worker, or one whose
      // record is missing without a tombstone, keeps its data (0024, "Orphans").
      const purge = !d && (await deletedForGood(s.db, id));
      await s.workers.deleteWorker(name, { purge });
      counts.removed++;
    } catch (err) {
      s.log.warn({ worker: name, err: (err as Error).message }, 'removing a worker nobody wants failed');
    }
  }
}
