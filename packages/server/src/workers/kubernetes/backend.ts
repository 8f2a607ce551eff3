// WORKER_BACKEND=kubernetes: assistants as Kubernetes workloads in the operator's namespace, in
// the placement the operator chose (KUBERNETES_PLACEMENT, or per assistant). Either placement can
// find, and remove, what the other created, so a new choice moves an assistant on its next deploy.
import type { KubeConfig } from '@kubernetes/client-node';
import { WORKER_PAGE, type WorkerHealth, type WorkerSpec, type WorkersPort, WorkerUpstreamError } from '../port.js';
import type { WorkerPlacementRepo } from '../../platform/store/worker-placements.js';
import { KubeApi } from './api.js';
import { DedicatedWorkers, LISTED, type UrlFor } from './dedicated.js';
import { SharedWorkers } from './shared.js';
import { WatchedNames, type WatchedNamesOptions } from './watched-names.js';
import type { ManifestContext } from './manifests/context.js';
import { agentNetworkPolicy } from './manifests/network-policy.js';
import { METRICS_SECRET, metricsSecret } from './manifests/metrics-secret.js';

export type Placement = 'shared' | 'dedicated';

/**
 * Objects a page of the API server's metadata list: its answer is parsed in one go on the event
 * loop, and a real object's metadata (labels, managedFields) is about 1 KB, so 1,000 a page would
 * hold the loop for tens of ms (issue 30: no stall over 20 ms from the reconciler). 100, not 250:
 * a page's body is read into one string, and at 250 (128 KB even with the bench's fake's 510-byte
 * items) those strings went to the old generation, which at 100,000 workers (800 pages a pass)
 * brought a major collection, 10–23 ms of pause, every ~300 ms of a pass (--trace-gc; at 100 the
 * old generation stayed flat, one major collection in the run).
 */
const METADATA_PAGE = 100;

export interface KubernetesWorkersOptions extends ManifestContext {
  kubeConfig: KubeConfig;
  placement: Placement;
  /** Assistants per agent host in the shared placement. */
  hostCapacity: number;
  placements: WorkerPlacementRepo;
  now: () => Date;
  /** How the control plane reaches `host:port` in the cluster (default: http, cluster DNS). */
  urlFor?: UrlFor;
  /**
   * The agents' /metrics token (AGENT_METRICS_TOKEN, else the control plane's METRICS_TOKEN),
   * copied into the agents' namespace.
   */
  metricsToken?: string;
  /** The watched set of names (watched-names.ts): its timings (tests), or false for none. */
  watch?: WatchedNamesOptions | false;
  /** Where the watched set says its failures. */
  log?: WatchedNamesOptions['log'];
  /** How long one request to the API server may go unanswered (api.ts CALL_DEADLINE_MS; tests). */
  callDeadlineMs?: number;
}

export function createKubernetesWorkers(o: KubernetesWorkersOptions): WorkersPort {
  const api = new KubeApi(o.kubeConfig, o.namespace, o.callDeadlineMs);
  const urlFor: UrlFor = o.urlFor ?? ((host, port) => `http://${host}:${port}`);
  const dedicated = new DedicatedWorkers(api, o, urlFor);
  const shared = new SharedWorkers(api, o, o.placements, urlFor, o.hostCapacity, o.now);
  const watched = o.watch === false ? undefined : new WatchedNames(api, { log: o.log, ...o.watch });
  /** In flight or done; cleared when it fails, so the next caller tries again. */
  let applied: Promise<void> | undefined;
  /** The last apply failed: readiness retries it until one succeeds (reachable(), below). */
  let applyFailed = false;
  /**
   * The namespace's own objects, once per run: the agents' NetworkPolicy and their metrics token.
   * Before any pod of this run starts (so its reference finds the token), and at the first list
   * (every pass lists, the start-up pass first), so a restart whose workers all still run applies a
   * new, rotated or removed METRICS_TOKEN too. Without a token the Secret goes, so a removed
   * METRICS_TOKEN does not keep the agents' /metrics open. Callers at once share the one apply (the
   * start-up pass's first list and the first /readyz each sent their own).
   */
  const namespaceObjects = () => {
    applied ??= (async () => {
      await api.apply(agentNetworkPolicy(o));
      if (o.metricsToken) await api.apply(metricsSecret(o, o.metricsToken));
      else await api.remove({ apiVersion: 'v1', kind: 'Secret', name: METRICS_SECRET });
    })().then(
      () => {
        applyFailed = false;
      },
      (err: unknown) => {
        applied = undefined;
        applyFailed = true;
        throw err;
      },
    );
    return applied;
  };
  return {
    name: `kubernetes (${o.placement})`,
    clusterWide: true,
    async createWorker(spec: WorkerSpec) {
      await namespaceObjects();
      // One assistant runs in one place: two pollers on one bot token would steal its updates.
      // The operator's choice for this assistant (`berth admin placement`) wins over the default.
      // A move between placements takes the assistant's users' data along (0024, "Moving an
      // assistant"): the old worker stops and hands it over, the new one takes it in, and only
      // then is the old copy purged. Any failure is a 503 the deploy job retries from the top.
      const placement = (await o.placements.choiceOf(spec.workerName)) ?? o.placement;
      if (placement === 'dedicated') {
        const data = await shared.handover(spec.workerName);
        const out = await dedicated.create(spec);
        watched?.wrote(spec.workerName, true);
        if (data !== undefined) await dedicated.importUserData(spec.workerName, spec.gatewayToken, data);
        await shared.remove(spec.workerName, data !== undefined);
        return out;
      }
      const data = await dedicated.handover(spec.workerName);
      const out = await shared.create(spec);
      if (data !== undefined) await shared.importUserData(spec.workerName, data);
      // Its claim goes only once its data is in the shared host; without a handover it is kept.
      if (await dedicated.remove(spec.workerName, data !== undefined)) watched?.wrote(spec.workerName, false);
      return out;
    },
    async deleteWorker(name, opts = {}) {
      const fromShared = await shared.remove(name, opts.purge === true);
      const fromDedicated = await dedicated.remove(name, opts.purge === true);
      if (fromDedicated) watched?.wrote(name, false);
      return fromShared || fromDedicated ? 'deleted' : 'not_found';
    },
    async applySettings(name, settings) {
      // The placement that holds it; the other one answers that it does not.
      const inShared = await shared.applySettings(name, settings);
      if (inShared === 'applied') return inShared;
      return dedicated.applySettings(name, settings);
    },
    async assistantCall(name, method, path, body) {
      return (
        (await shared.assistantCall(name, method, path, body)) ?? dedicated.assistantCall(name, method, path, body)
      );
    },
    async workerHealth(name): Promise<WorkerHealth> {
      return (await shared.health(name)) ?? dedicated.health(name);
    },
    // Both placements at once: the shared hosts' lists of troubles, the dedicated pods' health,
    // those named by the watched set while it is current (the health watch runs on the
    // reconciler's leader, whose passes keep the set in use anyway).
    async troubledWorkers() {
      const out = new Map<string, string>();
      const set = await watched?.current();
      await Promise.all([shared.troubles(out), dedicated.troubles(out, set?.names)]);
      return out;
    },
    // One Deployment's metadata, in the workers' namespace, with the pass's own selector: the API
    // server answers only if it is up, this control plane's credentials hold and it may list
    // there. Not behind the namespace objects' apply, which the start-up pass's first list sends
    // (at start the first /readyz waited for those four round trips, then for the list).
    // A failed apply of the namespace objects (a missing namespace, a Role without patch) leaves
    // reads answering while every list and create fails: not ready until an apply succeeds. The
    // probe retries the apply itself while the last one failed (and only then: a healthy probe
    // writes nothing): a replica that does not hold the reconciler's lease runs no pass after its
    // start, and would otherwise stay unready after the objects were fixed or applied by another.
    async reachable() {
      await dedicated.namesPage(0, { limit: 1 });
      if (applyFailed) await namespaceObjects();
    },
    // The sources in turn, a page of one at a time: the dedicated workers, then each shared host
    // (its GET /agents pages). The cursor names the source and its own cursor. The dedicated
    // workers come from the watched set (a snapshot of it, kept for the walk) while it is current;
    // otherwise each listed kind in turn (the API server's limit/continue), a worker with several
    // objects once a kind.
    async listWorkers(page = {}) {
      await namespaceObjects();
      const limit = Math.min(page.limit ?? WORKER_PAGE, WORKER_PAGE);
      const at = page.cursor ? readCursor(page.cursor) : { source: 0 };
      const cursor = (source: number, inner?: string, hosts?: number) => writeCursor({ source, inner, hosts });
      const fromSnapshot = (snapshot: number, names: string[], offset: number) => {
        const end = offset + limit;
        return {
          names: names.slice(offset, end),
          next: end < names.length ? writeCursor({ source: 0, snapshot, at: end }) : cursor(LISTED.length),
        };
      };
      if (at.snapshot !== undefined) {
        const names = watched?.snapshot(at.snapshot);
        // Gone only after several newer ones were taken: a walk this slow lists again next pass.
        if (!names) throw new WorkerUpstreamError(503, 'the list of workers changed too often during its walk');
        return fromSnapshot(at.snapshot, names, at.at ?? 0);
      }
      if (!page.cursor) {
        const set = await watched?.current();
        if (set) return fromSnapshot(set.generation, set.names, 0);
      }
      if (at.source < LISTED.length) {
        const r = await dedicated.namesPage(at.source, { limit: Math.min(limit, METADATA_PAGE), continue: at.inner });
        return { names: r.names, next: cursor(r.continue ? at.source : at.source + 1, r.continue) };
      }
      // How many shared hosts there are is read once a walk (at its first host page) and carried on.
      const host = at.source - LISTED.length;
      const r = await shared.namesPage(host, { limit, after: at.inner }, at.hosts);
      if (r.next !== undefined) return { names: r.names, next: cursor(at.source, r.next, r.hosts) };
      return host + 1 < r.hosts
        ? { names: r.names, next: cursor(at.source + 1, undefined, r.hosts) }
        : { names: r.names };
    },
    // The watched set may lag the API server by an event in flight (a worker another replica has
    // just created): before a pass takes a worker for vanished, its objects are read by name.
    async stillRuns(name) {
      return dedicated.exists(name);
    },
    close() {
      watched?.close();
    },
  };
}

/**
 * The list's cursor: which source (kinds, then shared hosts), that source's own cursor, and, once
 * the walk reaches the shared hosts, how many there are; or the watched set's snapshot and where
 * in it.
 */
type ListCursor = { source: number; inner?: string; hosts?: number; snapshot?: number; at?: number };
function writeCursor(c: ListCursor) {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}
function readCursor(text: string): ListCursor {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString());
    if (
      Number.isInteger(c?.source) &&
      c.source >= 0 &&
      (c.inner === undefined || typeof c.inner === 'string') &&
      (c.hosts === undefined || (Number.isInteger(c.hosts) && c.hosts >= 0)) &&
      (c.snapshot === undefined || (Number.isInteger(c.snapshot) && Number.isInteger(c.at) && c.at >= 0))
    )
      return c;
  } catch {}
  throw new WorkerUpstreamError(undefined, 'not a cursor of this list');
}
