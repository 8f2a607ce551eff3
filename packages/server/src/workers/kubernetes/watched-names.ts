// The dedicated workers' names as a Kubernetes controller's informer keeps them (issue 30): one
// list (paged) gives each listed kind's names and its resourceVersion, then a watch from there
// applies what changes. A reconcile pass every ~5 s then reads the names from memory instead of
// listing 200,000 objects' metadata at 100,000 workers (150–290 ms of CPU every idle second).
// Nothing is ever answered from a set that may have missed an event: a stream that ends or breaks,
// an ERROR event (410 Expired: the server no longer has the events since our resourceVersion) or
// any failure takes the set out of use until a new list has replaced it, and meanwhile callers
// list as before. The set is listed afresh every RELIST_MS anyway (see below).
import { deadline } from '@berth/contracts/deadline';
import { SplitMap } from '../../platform/split-map.js';
import { slicer } from '../../platform/yield-now.js';
import type { KubeApi } from './api.js';
import { LISTED } from './dedicated.js';
import { WORKER, selectorFor } from './manifests/labels.js';

/**
 * The set is replaced by a full list this often even while its watch runs: the level-triggered
 * safety net against an event the watch never delivered (an API server or proxy fault), at a
 * bounded cost: a missed deletion is seen within this time (plus a pass), and at 100,000 workers
 * the 2,000 pages are listed once in five minutes instead of once every 5 s pass (60 × less).
 */
export const RELIST_MS = 5 * 60_000;
/**
 * No caller for this long: the watch stops and the set is dropped. Only the replica that holds the
 * reconciler's lease runs passes; a replica that lost it must not keep a watch (and its memory).
 */
export const IDLE_MS = 60_000;
/** A failed list or watch is tried again after this, doubling up to MAX_BACKOFF_MS. */
const BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** A watch that ran this long was healthy: the next failure starts its backoff from the start. */
const HEALTHY_MS = 30_000;
/** Walks in progress keep the snapshot they started on; older ones are dropped. */
const SNAPSHOTS = 4;
/**
 * How long a walk waits for a list of the set that is under way (current) before it lists the
 * API server itself: longer than a list of 100,000 workers takes here, short enough that a list
 * that hangs delays a pass by no more than this.
 */
const WAIT_MS = 60_000;
/** Objects a page of the relist (api.ts, METADATA_PAGE in backend.ts says why so few). */
const PAGE = 100;

/** The mask of a name every listed kind carries (and of `live` when every kind is current). */
const EVERY_KIND = (1 << LISTED.length) - 1;
/**
 * Above the kinds' bits, a name's entry holds, for each kind, the mark of the last relist of that
 * kind that listed it: a relist marks what it lists in the set itself, then drops the kind from
 * every name it did not mark. Before, each relist built a set of its own of every name it listed
 * (100,000 at 100,000 workers, kept across its 1,000 pages and so promoted): with the second kind's
 * copy of each name, about 20 MB of the start-up pass's garbage (decision 0027, round 14). A mark
 * is a counter, not a bit: a relist that failed half way leaves its marks, and the next relist's
 * own mark must differ from them. A kind's mark is cleared whenever its bit changes (withBits), so
 * a mark is always that of the last relist that found the bit held since; every relist that ends
 * re-marks or clears each name with the bit. The counter wraps after MARK_MAX relists of a kind: a
 * stale mark could pass for the current one only if the MARK_MAX relists since it had all failed
 * before their sweep (then the name would keep the bit until the next relist). Within 30 bits: a
 * small integer, no allocation per entry.
 */
const MARK_BITS = Math.floor((30 - LISTED.length) / LISTED.length);
const MARK_MAX = (1 << MARK_BITS) - 1;
const markShift = (k: number) => LISTED.length + k * MARK_BITS;
const markOf = (entry: number, k: number) => (entry >>> markShift(k)) & MARK_MAX;
const withMark = (entry: number, k: number, mark: number) =>
  (entry & ~(MARK_MAX << markShift(k))) | (mark << markShift(k));

export interface WatchedNamesOptions {
  relistMs?: number;
  idleMs?: number;
  /** The first pause after a failure (BACKOFF_MS). */
  backoffMs?: number;
  now?: () => number;
  /** Where a failed list or watch is said (once a failure: at most one line a backoff). */
  log?: { warn(o: object, msg: string): void };
  /** How long a walk waits for a list under way (WAIT_MS). */
  waitMs?: number;
}

export class WatchedNames {
  /**
   * name → bit mask of the listed kinds (LISTED's index) whose objects carry it, and each kind's
   * relist mark above them (MARK_BITS). Split: a Map of 100,000 names doubles its table in one
   * step of tens of ms (split-map.ts).
   */
  private names = new SplitMap<number>();
  /** Kind k's last relist mark (1 … MARK_MAX; 0 is no relist). */
  private readonly marks = LISTED.map(() => 0);
  /** Bit k: kind k's names are current (listed, and watched since without a gap). */
  private live = 0;
  /** Bit k: kind k is being listed (the set's first list, a relist), not waiting out a failure. */
  private listing = 0;
  /** Walks waiting for a list under way (current): told when it ends, well or not. */
  private readonly waiting = new Set<() => void>();
  /** Bumped by every change to `names`: a snapshot is rebuilt only after one. */
  private generation = 0;
  private readonly snapshots = new Map<number, string[]>();
  private lastUsed = 0;
  private stop: AbortController | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly relistMs: number;
  private readonly idleMs: number;
  private readonly backoffMs: number;
  private readonly now: () => number;
  private readonly log: WatchedNamesOptions['log'];
  private readonly waitMs: number;

  constructor(
    private readonly api: KubeApi,
    o: WatchedNamesOptions = {},
  ) {
    this.relistMs = o.relistMs ?? RELIST_MS;
    this.idleMs = o.idleMs ?? IDLE_MS;
    this.backoffMs = o.backoffMs ?? BACKOFF_MS;
    this.now = o.now ?? Date.now;
    this.log = o.log;
    this.waitMs = o.waitMs ?? WAIT_MS;
  }

  /**
   * The names of every listed kind, as of now, when every kind's set is current; undefined while
   * one is not (failed, waiting out its backoff): the caller lists the API server itself. While
   * every kind that is not current is being listed (the set's first list at start-up, the relist
   * every RELIST_MS) it waits for those lists to end: the walk would otherwise list the API server
   * itself beside the set's own list, at start-up 2,000 more pages at 100,000 workers, the
   * restoring pass's CPU and garbage twice over (bench:scale). A kind waiting out a failure is not
   * waited for (its backoff may be 30 s), nor another kind's list beside it. Undefined too when a
   * list failed or they took longer than WAIT_MS. Starts the watches at the first call.
   */
  async current(): Promise<{ generation: number; names: string[] } | undefined> {
    this.lastUsed = this.now();
    // From the first walk (the start-up restoring pass's, which every replica runs): started at
    // the second, the set's first list of 2,000 pages fell in the first steady passes instead
    // (bench:scale at 100,000: idle CPU 65–100 ms/s against 40). A replica that does not hold the
    // lease walks no more and drops it after IDLE_MS.
    if (!this.stop) this.start();
    // Every kind current or being listed: wait for the lists (each wakes the walk as it ends).
    // On the real clock: the timer that ends the wait runs on it (`now` may be a test's).
    const until = Date.now() + this.waitMs;
    while (this.live !== EVERY_KIND && (this.live | this.listing) === EVERY_KIND && Date.now() < until)
      await this.listed(until - Date.now());
    // The wait was use too: the set is not idle from when the walk began waiting.
    this.lastUsed = this.now();
    if (this.live !== EVERY_KIND) return undefined;
    const generation = this.generation;
    let names = this.snapshots.get(generation);
    if (!names) {
      names = await this.collect();
      if (!names) return undefined;
      this.snapshots.set(generation, names);
      for (const g of this.snapshots.keys()) if (this.snapshots.size > SNAPSHOTS) this.snapshots.delete(g);
    }
    return { generation, names };
  }

  /** Resolves when a list under way ends (well or not), the set closes, or after `ms`. */
  private listed(ms: number) {
    return new Promise<void>((ok) => {
      const done = () => {
        clearTimeout(t);
        this.waiting.delete(done);
        ok();
      };
      const t = setTimeout(done, ms);
      t.unref();
      this.waiting.add(done);
    });
  }

  /**
   * The names as an array, given back to the event loop every few ms: copied in one step, 100,000
   * names held the loop 11–23 ms, outside any pass's slices (the walk's page fetch is a boundary),
   * once after every change to the set. Events applied meanwhile may or may not be in it, as if it
   * had been taken a moment earlier or later: a walk already treats the list as lagging (a missing
   * worker is read by name, a stray's deployment read again). Undefined if the set went out of use
   * or closed meanwhile.
   */
  private async collect(): Promise<string[] | undefined> {
    const set = this.names;
    const out: string[] = [];
    const slice = slicer();
    for (const [name] of set) {
      out.push(name);
      const y = slice();
      if (y) {
        await y;
        if (this.names !== set || this.live !== EVERY_KIND) return undefined;
      }
    }
    slice.end();
    return out;
  }

  /** A list ended (well or not), or the set closed: the waiting walks look again. */
  private wake() {
    for (const done of [...this.waiting]) done();
  }

  /** A snapshot a walk started on, while it is kept. */
  snapshot(generation: number): string[] | undefined {
    return this.snapshots.get(generation);
  }

  /**
   * This control plane has just created (`runs`) or removed a worker's objects: the set says so at
   * once, before the watch's events arrive, so a list right after a create or a stop names what
   * the API server holds (as a list of its own would). An older event still in flight may undo it
   * for a moment; a pass checks a missing worker by name (stillRuns) and a stray's removal of
   * nothing is a no-op, and the event of the write itself follows.
   */
  wrote(name: string, runs: boolean) {
    // Not watching (a replica that runs no pass): nothing to keep.
    if (!this.stop) return;
    if (withBits(this.names, name, EVERY_KIND, runs)) this.generation++;
  }

  /** Stops the watches and forgets the set (the backend is closing, or nobody asks any more). */
  close() {
    this.stop?.abort();
    this.stop = undefined;
    clearInterval(this.idleTimer);
    this.idleTimer = undefined;
    this.live = 0;
    this.listing = 0;
    this.wake();
    this.names = new SplitMap<number>();
    this.snapshots.clear();
    this.generation++;
  }

  private start() {
    const stop = new AbortController();
    this.stop = stop;
    for (let k = 0; k < LISTED.length; k++) void this.follow(k, stop.signal);
    // Not while a walk waits for the lists: a first list longer than IDLE_MS (a slow API server,
    // a huge cluster) would otherwise be closed under the walk, which then lists it all again.
    this.idleTimer = setInterval(() => {
      if (this.waiting.size === 0 && this.now() - this.lastUsed > this.idleMs) this.close();
    }, this.idleMs / 2).unref();
  }

  /** Kind k: list, watch from the list's resourceVersion until that fails or a relist is due; again. */
  private async follow(k: number, stop: AbortSignal) {
    const kind = LISTED[k]!;
    const bit = 1 << k;
    let backoff = this.backoffMs;
    while (!stop.aborted) {
      this.live &= ~bit;
      let watchedSince: number | undefined;
      try {
        this.listing |= bit;
        let resourceVersion: string;
        try {
          resourceVersion = await this.relist(k, stop);
        } finally {
          // Not after a close: a set started since owns the bit now.
          if (!stop.aborted) this.listing &= ~bit;
        }
        if (stop.aborted) break;
        this.live |= bit;
        this.wake();
        // Until the relist is due; its end (or the server's) takes the set out of use: a new list.
        // Held by its own timer (contracts/deadline.ts: a timeout signal inside AbortSignal.any may
        // be collected in Node 20, and the relist, the safety net, would then never come).
        const until = deadline(this.relistMs, stop);
        watchedSince = this.now();
        try {
          await this.api.watchMetadata(
            kind.apiVersion,
            kind.plural,
            selectorFor('worker'),
            resourceVersion,
            (e) => this.apply(bit, e),
            until.signal,
          );
        } finally {
          until.clear();
        }
        if (stop.aborted) break;
        // The relist is due, or the server ended a watch that ran a while (they do, every few
        // minutes): list again now. One ended at once (a proxy closing every stream) waits out the
        // backoff as a failure does, or it would relist back to back.
        if (until.timedOut || this.now() - watchedSince >= HEALTHY_MS) {
          backoff = this.backoffMs;
          continue;
        }
        this.live &= ~bit;
        this.failed(kind.plural, 'the watch ended at once', backoff);
      } catch (err) {
        if (stop.aborted) break;
        // Any failure: out of use, and listed again after a pause.
        this.live &= ~bit;
        if (watchedSince !== undefined && this.now() - watchedSince >= HEALTHY_MS) backoff = this.backoffMs;
        this.failed(kind.plural, (err as Error).message, backoff);
      }
      await new Promise<void>((ok) => {
        // The listener goes when the timer fires: a watch that keeps failing (a Role without watch)
        // would otherwise add one to the long-lived signal per retry, without bound.
        const onAbort = () => {
          clearTimeout(t);
          ok();
        };
        const t = setTimeout(() => {
          stop.removeEventListener('abort', onAbort);
          ok();
        }, backoff);
        t.unref();
        stop.addEventListener('abort', onAbort, { once: true });
      });
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  /**
   * Said, or a Role without watch (or list) would show only as CPU: the passes list the API server
   * every 5 s meanwhile, which is correct but costs what the set saves.
   */
  private failed(plural: string, reason: string, retryInMs: number) {
    this.wake();
    this.log?.warn(
      { kind: plural, reason: reason.slice(0, 300), retryInMs },
      'the watched set of worker names is out of use: passes list the API server until it is listed and watched again',
    );
  }

  /** One event of kind `bit`'s watch; an ERROR (410 Expired above all) throws: relist. */
  private apply(bit: number, e: { type: string; object?: { metadata?: { labels?: Record<string, string> } } }) {
    if (e.type === 'BOOKMARK') return;
    const name = e.object?.metadata?.labels?.[WORKER];
    if (e.type === 'ERROR' || (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED'))
      throw new Error(`the watch answered ${e.type} ${JSON.stringify(e.object ?? {}).slice(0, 200)}`);
    if (name && withBits(this.names, name, bit, e.type !== 'DELETED')) this.generation++;
  }

  /**
   * Kind k's names, listed page by page, replace its bit in the set: each listed name gets the bit
   * and this relist's mark as its page comes; then every name with the bit and without the mark
   * loses the bit. Resolves with the list's resourceVersion.
   */
  private async relist(k: number, stop: AbortSignal): Promise<string> {
    const kind = LISTED[k]!;
    const bit = 1 << k;
    const mark = (this.marks[k]! % MARK_MAX) + 1;
    this.marks[k] = mark;
    // A close meanwhile replaced the set: nothing of this list may reach the new one (which must
    // free the memory, and whose own list may be under way).
    const names = this.names;
    const gone = () => stop.aborted || this.names !== names;
    const slice = slicer();
    let resourceVersion: string | undefined;
    let next: string | undefined;
    do {
      const page = await this.api.listMetadataPage(kind.apiVersion, kind.plural, selectorFor('worker'), {
        limit: PAGE,
        continue: next,
      });
      // Every page of one list is served at the first page's resourceVersion.
      resourceVersion ??= page.resourceVersion;
      if (gone()) break;
      // The kind is not current while it is listed (no walk reads its bit), so names may take it
      // page by page. An entry is read as it is now: an event of another kind or this replica's
      // own write may have changed it since the last page.
      for (const o of page.items) {
        const n = o.metadata?.labels?.[WORKER];
        if (n) names.set(n, withMark((names.get(n) ?? 0) | bit, k, mark));
      }
      next = page.continue;
      await slice(true);
    } while (next !== undefined && !stop.aborted);
    if (!resourceVersion) throw new Error(`the list of ${kind.plural} carried no resourceVersion`);
    if (gone()) return resourceVersion;
    // 100,000 names: given back to the event loop every few ms. After each pause the set may have
    // been closed (and replaced), and an entry may have changed or gone: the iteration reads each
    // as it is then; a name left with no kind goes (withBits).
    for (const [name, entry] of names) {
      const y = slice();
      if (y) {
        await y;
        if (gone()) return resourceVersion;
      }
      if (entry & bit && markOf(entry, k) !== mark) withBits(names, name, bit, false);
    }
    slice.end();
    if (gone()) return resourceVersion;
    this.generation++;
    return resourceVersion;
  }
}

/**
 * Sets or clears the kinds `bits` of `name` as it is now (an event or a write may have changed it
 * since it was read); a name left with no kind goes: an empty mask would be a name no event or
 * relist could remove. Whether it changed.
 */
function withBits(names: SplitMap<number>, name: string, bits: number, on: boolean): boolean {
  const had = names.get(name) ?? 0;
  let has = on ? had | bits : had & ~bits;
  if (has === had) return false;
  // A kind whose bit changes loses its relist mark: a mark then always means the bit has held since
  // the relist that set it (see MARK_BITS). With no kind left the name goes, marks and all.
  const changed = has ^ had;
  for (let k = 0; k < LISTED.length; k++) if (changed & (1 << k)) has = withMark(has, k, 0);
  if (has & EVERY_KIND) names.set(name, has);
  else names.delete(name);
  return true;
}
