// What the reconciler knows of the desired state between passes: each deployment that wants a
// worker, by worker name, with the status and generation it had when last read. A pass starts by
// bringing it up to date: a full read (paged by id, narrow columns) at first and every
// FULL_EVERY passes, otherwise only the rows written since the watermark (the updated_at of the
// last read, less a margin for clocks and transactions that commit late). The index only tells a
// pass where to look: every action re-reads the deployment first, so a stale entry costs a read,
// never a wrong action; the periodic full read bounds how long anything missed stays missed.
import type { DeploymentRepo, DesiredRow } from '../platform/store/deployments.js';
import { slicer, type Slicer } from '../platform/yield-now.js';
import { STATUSES } from '../domain/deployment.js';
import { SplitMap } from '../platform/split-map.js';

export interface Wanted {
  /** The deployment's id; left out when it is the worker name less `asst-` (almost always: 100,000 strings fewer). */
  id?: string;
  status: string;
  generation: number;
  /** The pass that last saw this worker listed by the backend. */
  seen: number;
  /** The full read that last found it (a full read drops the entries it did not find). */
  read: number;
}

/**
 * Narrow rows read at a time. A SQLite read is synchronous: the page is one stretch of the event
 * loop that no slice can cut, so it is kept small.
 */
const PAGE = 250;
/**
 * Passes between full reads (every 5 minutes at the default 5 s interval): the backstop for a
 * change the watermark missed (a row deleted, a clock far off). A full read of 100,000 rows costs
 * about as much CPU as ten steady passes.
 */
export const FULL_EVERY = 60;
/**
 * How far before the last read a changed-rows read starts again: a row written within this of a
 * pass's start is read again by the passes that follow it (bench:scale waits it out).
 */
export const MARGIN_MS = 30_000;

export class DesiredIndex {
  /** Split (split-map.ts): one Map of 100,000 doubled in one unsliced step of tens of ms. */
  wanted = new SplitMap<Wanted>();
  /** Passes that used this index (reconcile-pass.ts marks listed workers with it). */
  passes = 0;
  private watermark: string | undefined;
  private sinceFull = 0;
  /** Full reads made (the `read` mark of the last one). */
  private reads = 0;

  /** Brings the index up to date; `full` forces a full read. Returns how many rows it read. */
  async refresh(
    repo: Pick<DeploymentRepo, 'pageWantingWorkers' | 'pageChangedSince'>,
    now: Date,
    full = false,
    slice: Slicer = slicer(),
  ) {
    const from = new Date(now.getTime() - MARGIN_MS).toISOString();
    let read = 0;
    if (full || this.watermark === undefined || ++this.sinceFull >= FULL_EVERY) {
      // Marked in place, then what was not found is dropped: a new index of 100,000 entries would
      // be 100,000 new objects and keys for the collector to copy and promote (its pauses, tens of
      // milliseconds, fell inside the pass's slices).
      const mark = ++this.reads;
      for (let after = ''; ; ) {
        const page = await slice.across(repo.pageWantingWorkers(after, PAGE));
        for (const r of page) {
          this.upsert(r).read = mark;
          const y = slice();
          if (y) await y;
        }
        read += page.length;
        if (page.length < PAGE) break;
        after = page[page.length - 1]!.id;
        await slice(true);
      }
      // The iteration survives deleting the entry it is at.
      for (const [name, w] of this.wanted) {
        if (w.read !== mark) this.wanted.delete(name);
        const y = slice();
        if (y) await y;
      }
      this.sinceFull = 0;
    } else {
      for (let after = { updatedAt: this.watermark, id: '' }; ; ) {
        const page = await slice.across(repo.pageChangedSince(after, PAGE));
        for (const r of page) {
          this.apply(r);
          const y = slice();
          if (y) await y;
        }
        read += page.length;
        if (page.length < PAGE) break;
        const last = page[page.length - 1]!;
        after = { updatedAt: last.updatedAt, id: last.id };
        await slice(true);
      }
    }
    this.watermark = from;
    return read;
  }

  /** Takes `wanted` as the whole desired state, read from `at` on (a restoring pass read it in full). */
  replace(wanted: SplitMap<Wanted>, at: Date) {
    this.wanted = wanted;
    this.watermark = new Date(at.getTime() - MARGIN_MS).toISOString();
    this.sinceFull = 0;
  }

  /**
   * Records a deployment read afresh (a changed row, or a pass that looked closer). A known entry
   * is updated in place: a pass over 100,000 changed rows then leaves no new objects behind for the
   * collector to copy and promote (its pauses grew with them).
   */
  apply(r: Pick<DesiredRow, 'id' | 'workerName' | 'status' | 'desired' | 'generation'>) {
    if (r.desired === 'running') this.upsert(r);
    else this.wanted.delete(r.workerName);
  }

  private upsert(r: Pick<DesiredRow, 'id' | 'workerName' | 'status' | 'generation'>): Wanted {
    const w = this.wanted.get(r.workerName);
    if (!w) {
      const e = this.entry(r);
      this.wanted.set(r.workerName, e);
      return e;
    }
    w.status = internStatus(r.status);
    w.generation = r.generation;
    const id = namedAfter(r.workerName, r.id) ? undefined : r.id;
    if (w.id !== id) w.id = id;
    return w;
  }

  /** A new entry for a row read, not yet seen by a pass. */
  entry(r: Pick<DesiredRow, 'id' | 'workerName' | 'status' | 'generation'>): Wanted {
    const w: Wanted = {
      status: internStatus(r.status),
      generation: r.generation,
      seen: 0,
      read: this.reads,
    };
    if (!namedAfter(r.workerName, r.id)) w.id = r.id;
    return w;
  }
}

/** One string per status for the whole index, not one per row read. */
function internStatus(status: string): string {
  return STATUSES.find((x) => x === status) ?? status;
}

const WORKER_PREFIX = 'asst-';

/**
 * Whether `name` is `asst-` and `id`, compared in place: the joined string would be one more
 * string per row read for the collector (two, flattened), at 100,000 rows a read.
 */
function namedAfter(name: string, id: string): boolean {
  return name.length === WORKER_PREFIX.length + id.length && name.startsWith(WORKER_PREFIX) && name.endsWith(id);
}

/** The deployment id of an index entry. */
export function idOf(name: string, w: Pick<Wanted, 'id'>): string {
  return w.id ?? name.slice(WORKER_PREFIX.length);
}
