// How the control plane runs assistants. The local backend (an agent host process) and the
// Kubernetes backend implement this; tests use a fake that follows the same contract.
import type { AssistantSettings } from '@berth/contracts/settings';

/** What a worker is given (one typed document, DESIGN §9.1): see @berth/contracts/worker. */
export type { WorkerSpec } from '@berth/contracts/worker';
import type { WorkerSpec } from '@berth/contracts/worker';

/** POST: an update for the assistant's channel (ingress); PUT: a whole document (its MCP servers). */
export type AssistantMethod = 'GET' | 'DELETE' | 'POST' | 'PUT';

export interface AssistantReply {
  status: number;
  json: any;
}

export interface WorkerHealth {
  ready: boolean;
  /** Final: the worker will not become ready by waiting (e.g. Telegram rejected the token). */
  failed: boolean;
  reason: string | null;
  /** The bot's @username once Telegram accepted the token (for the connect panel's t.me link). */
  botUsername?: string | null;
}

/** The upstream answered something other than success or 404, or could not be reached. */
export class WorkerUpstreamError extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'WorkerUpstreamError';
  }
}

/** One page of worker names; `next` is the opaque cursor of the page after, absent on the last. */
export interface WorkerNamesPage {
  names: string[];
  next?: string;
}

/** Names a backend returns a page unless told otherwise. */
export const WORKER_PAGE = 1000;

/** Every page of the backend's worker names in turn (`limit`: names a page). */
export async function* workerPages(workers: Pick<WorkersPort, 'listWorkers'>, limit = WORKER_PAGE) {
  let cursor: string | undefined;
  do {
    const page = await workers.listWorkers({ cursor, limit });
    yield page.names;
    // A backend that hands back the cursor it was given would be walked for ever.
    if (page.next !== undefined && page.next === cursor)
      throw new WorkerUpstreamError(undefined, `the workers backend repeated the list cursor ${cursor}`);
    cursor = page.next;
  } while (cursor !== undefined);
}

/**
 * A page of names held in memory (the test and bench backends): sorted, the cursor is the last
 * name of the page before, as the local agent host answers.
 */
export function pageOfNames(all: Iterable<string>, page: { cursor?: string; limit?: number } = {}): WorkerNamesPage {
  const after = page.cursor;
  const sorted = [...all].filter((n) => after === undefined || n > after).sort();
  const names = sorted.slice(0, page.limit ?? WORKER_PAGE);
  return names.length < sorted.length ? { names, next: names[names.length - 1] } : { names };
}

export interface WorkersPort {
  readonly name: string;
  /** Creates the worker or replaces the one with the same name; resolves with its URL. */
  createWorker(spec: WorkerSpec): Promise<{ workerUrl: string }>;
  /**
   * 'not_found' is success too (the spec treats an upstream 404 as gone); throws
   * WorkerUpstreamError otherwise. `purge` also forgets the worker's conversations.
   */
  deleteWorker(workerName: string, opts?: { purge?: boolean }): Promise<'deleted' | 'not_found'>;
  workerHealth(workerName: string): Promise<WorkerHealth>;
  /**
   * Swaps a running worker's settings in place (no restart of its bot). 'not_found' when the
   * backend runs no worker of that name: it never creates one.
   */
  applySettings(workerName: string, settings: AssistantSettings): Promise<'applied' | 'not_found'>;
  /**
   * One assistant's own admin calls (its pending pairing codes, DESIGN §7.1; a webhook update,
   * §9.1, POSTed with its body), at `path` under the assistant: the agent's status and JSON body,
   * or 404 when the backend runs no worker of that name.
   */
  assistantCall(workerName: string, method: AssistantMethod, path: string, body?: unknown): Promise<AssistantReply>;
  /**
   * Names of the workers the backend runs now, for reconciliation, one page at a time (issue 30:
   * 100,000 names in one answer held the event loop for tens of ms). Start without `cursor`, pass
   * each answer's `next` back until it has none. At most `limit` names a page (a backend may cap
   * it lower; default WORKER_PAGE). A name may show up in two pages (a backend that pages several
   * sources, or one that changed meanwhile): callers treat the names as a set. workerPages() walks them.
   */
  listWorkers(page?: { cursor?: string; limit?: number }): Promise<WorkerNamesPage>;
  /**
   * Resolves once the backend has answered the cheapest read that proves it is reachable and lets
   * this control plane see its workers (readiness, /readyz); rejects as listWorkers would. Absent:
   * readiness asks listWorkers for one name. For a backend whose first list has side effects to
   * wait for (Kubernetes applies its namespace objects first), a read without them.
   */
  reachable?(): Promise<void>;
  /**
   * True for a backend private to this replica (the local agent host): such a replica removes
   * from its own backend, every interval, what no record wants (prune-own-host.ts).
   */
  readonly perReplica?: boolean;
  /**
   * A per-replica backend: whether the worker at `workerUrl` (a record's) runs on another
   * replica's backend that is still up. The leader's pass lists only its own backend, so without
   * this it would take such a worker for vanished and redeploy it: a status flap and two pollers.
   */
  runsElsewhere?(workerUrl: string): Promise<boolean>;
  /**
   * Whether the backend runs the worker, read by name: for a backend whose list answers from a
   * watched copy (Kubernetes), which may lag by an event in flight. A pass asks before it takes a
   * worker missing from the list for vanished (rare: only then, one read).
   */
  stillRuns?(workerName: string): Promise<boolean>;
  /**
   * The workers that run but are not well, each with its reason in words its owner can act on
   * (another program polls its bot, Telegram rejects its token or cannot be reached, the model
   * provider rejects its key): the health watch (deployments/health-watch.ts) shows them in
   * statusMessage. Absent: the backend cannot say cheaply, and active assistants are not watched.
   */
  troubledWorkers?(): Promise<Map<string, string>>;
  /**
   * Every replica's backend reaches the same workers (a cluster), not workers of its own (the local
   * agent host): one replica's health watch, the reconciler's leader's, is enough.
   */
  readonly clusterWide?: boolean;
  /** Stops what the backend keeps running in the background (the Kubernetes backend's watch). */
  close?(): void;
  /**
   * The Prometheus text of the agent host this process supervises (local backend), which the
   * control plane's /metrics carries on; Kubernetes pods are scraped themselves (the chart's PodMonitor).
   */
  hostMetrics?(): Promise<string>;
}
