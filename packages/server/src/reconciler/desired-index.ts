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

export interface Wanted {
  /** The deployment's id; left out when it is the worker name less `asst-` (almost always: 100,000 strings fewer). */
  id?: string;
  status: string;
  generation: number;
  /** The pass that last saw this worker listed by the backend. */
  seen: number;
}

const PAGE = 500;
/**
 * Passes between full reads (every 5 minutes at the default 5 s interval): the backstop for a
 * change the watermark missed (a row deleted, a clock far off). A full read of 100,000 rows costs
 * about as much CPU as ten steady passes.
 */
export const FULL_EVERY = 60;
/** How far before the last read a changed-rows read starts again. */
const MARGIN_MS = 30_000;

export class DesiredIndex {
  wanted = new Map<string, Wanted>();
  /** Passes that used this index (reconcile-pass.ts marks listed workers with it). */
  passes = 0;
  private watermark: string | undefined;
  private sinceFull = 0;

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
      const seen = new Map<string, Wanted>();
      for (let after = ''; ; ) {
        const page = await slice.across(repo.pageWantingWorkers(after, PAGE));
        for (const r of page) seen.set(r.workerName, this.entry(r));
        read += page.length;
        if (page.length < PAGE) break;
        after = page[page.length - 1]!.id;
        await slice(true);
      }
      this.wanted = seen;
      this.sinceFull = 0;
    } else {
      for (let after = { updatedAt: this.watermark, id: '' }; ; ) {
        const page = await slice.across(repo.pageChangedSince(after, PAGE));
        for (const r of page) this.apply(r);
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
  replace(wanted: Map<string, Wanted>, at: Date) {
    this.wanted = wanted;
    this.watermark = new Date(at.getTime() - MARGIN_MS).toISOString();
    this.sinceFull = 0;
  }

  /** Records a deployment read afresh (by a pass that looked closer). */
  apply(r: Pick<DesiredRow, 'id' | 'workerName' | 'status' | 'desired' | 'generation'>) {
    if (r.desired === 'running') this.wanted.set(r.workerName, this.entry(r));
    else this.wanted.delete(r.workerName);
  }

  entry(r: Pick<DesiredRow, 'id' | 'workerName' | 'status' | 'generation'>): Wanted {
    const w: Wanted = {
      // One string per status for the whole index, not one per row read.
      status: STATUSES.find((x) => x === r.status) ?? r.status,
      generation: r.generation,
      seen: this.wanted.get(r.workerName)?.seen ?? 0,
    };
    if (r.workerName !== `${WORKER_PREFIX}${r.id}`) w.id = r.id;
    return w;
  }
}

const WORKER_PREFIX = 'asst-';

/** The deployment id of an index entry. */
export function idOf(name: string, w: Pick<Wanted, 'id'>): string {
  return w.id ?? name.slice(WORKER_PREFIX.length);
}
