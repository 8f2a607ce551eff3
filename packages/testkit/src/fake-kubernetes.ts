// A Kubernetes API server on loopback, for the control plane's Kubernetes workers backend. It
// speaks the REST contract the official client uses: discovery, server-side apply
// (PATCH application/apply-patch+yaml with fieldManager), create (409 AlreadyExists), get and
// delete (404 NotFound Status), list and watch with labelSelector (a watch from a resourceVersion
// replays what followed it, or answers 410 Expired once that is compacted away; BOOKMARKs when
// asked for), the status subresource, and optimistic concurrency on resourceVersion. Objects carry uid, resourceVersion, generation and
// creationTimestamp as a real server sets them; deleting an owner deletes what it owns.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { close, createServer, listen, readBody, sendJson } from './http.js';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[];
    managedFields?: unknown[];
    [k: string]: unknown;
  };
  spec?: any;
  status?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  [k: string]: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Events a watch from an older resourceVersion can be replayed (etcd keeps ~5 minutes of them). */
const HISTORY = 10_000;
/** How often open watches that asked for them get a BOOKMARK (a real API server: about a minute). */
const BOOKMARK_MS = 1000;

interface Resource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  status: boolean;
}

// Every kind the fake serves is namespaced and at version v1; `status`: it has a status subresource.
const v1 = (group: string, kind: string, plural: string, status: boolean): Resource => ({
  group,
  version: 'v1',
  kind,
  plural,
  namespaced: true,
  status,
});

const RESOURCES: Resource[] = [
  v1('', 'Secret', 'secrets', false),
  v1('', 'Service', 'services', true),
  v1('', 'Pod', 'pods', true),
  v1('', 'PersistentVolumeClaim', 'persistentvolumeclaims', true),
  v1('', 'ServiceAccount', 'serviceaccounts', false),
  v1('apps', 'Deployment', 'deployments', true),
  v1('apps', 'StatefulSet', 'statefulsets', true),
  v1('networking.k8s.io', 'NetworkPolicy', 'networkpolicies', false),
  v1('policy', 'PodDisruptionBudget', 'poddisruptionbudgets', true),
];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function apiVersionOf(r: Resource) {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

function status(code: number, reason: string, message: string, details?: Record<string, unknown>) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Parses a label selector (equality- and set-based) into a predicate; throws ApiError 400 when malformed. */
export function parseLabelSelector(selector: string): (labels: Record<string, string>) => boolean {
  const tests: ((l: Record<string, string>) => boolean)[] = [];
  // Split on commas that are not inside parentheses.
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() || parts.length) parts.push(cur);
  const key = '([A-Za-z0-9][-A-Za-z0-9_./]*)';
  for (const raw of parts) {
    const p = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = new RegExp(`^${key}\\s*(==|=|!=)\\s*([-A-Za-z0-9_.]*)$`).exec(p))) {
      const [, k, op, v] = m as unknown as [string, string, string, string];
      tests.push(op === '!=' ? (l) => l[k] !== v : (l) => l[k] === v);
    } else if ((m = new RegExp(`^${key}\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(p))) {
      const [, k, op, list] = m as unknown as [string, string, string, string];
      const values = new Set(list.split(',').map((s) => s.trim()));
      tests.push(
        op === 'in' ? (l) => l[k] !== undefined && values.has(l[k]!) : (l) => l[k] === undefined || !values.has(l[k]!),
      );
    } else if ((m = new RegExp(`^!${key}$`).exec(p))) {
      const k = m[1]!;
      tests.push((l) => l[k] === undefined);
    } else if ((m = new RegExp(`^${key}$`).exec(p))) {
      const k = m[1]!;
      tests.push((l) => l[k] !== undefined);
    } else {
      throw new ApiError(400, 'BadRequest', `unable to parse requirement: invalid label selector "${selector}"`);
    }
  }
  return (labels) => tests.every((t) => t(labels));
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function mergePatch(target: any, patch: any): any {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return clone(patch);
  const out = target && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export interface RecordedKubeRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  accept?: string;
  query: Record<string, string>;
}

type Listener = (type: WatchEventType, obj: KubeObject) => void;

/** The index of the first of the sorted `keys` at or after `key` (binary search). */
function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  for (let hi = keys.length; lo < hi; ) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class FakeKubernetes {
  readonly token = `fake-sa-token-${randomUUID()}`;
  readonly requests: RecordedKubeRequest[] = [];
  private server: Server | undefined;
  private rv = 1000;
  /** key: plural/namespace/name */
  private readonly objects = new Map<string, KubeObject>();
  private readonly listeners = new Set<Listener>();
  /** The last events in resourceVersion order, for a watch from an older resourceVersion. */
  private history: Array<{ type: WatchEventType; obj: KubeObject }> = [];
  /** A watch from before this resourceVersion is answered 410 Expired (its events are gone). */
  private compacted = this.rv;
  /** Open watch streams: `bookmark` when it asked for BOOKMARKs. */
  private readonly watches = new Map<ServerResponse, { bookmark: boolean; rv: () => string; meta: boolean }>();
  private bookmarks: NodeJS.Timeout | undefined;
  /**
   * Per resource (plural), its objects' keys (`namespace/name`) in order, kept sorted on every
   * create and delete, as etcd keeps its keys: a list page is a walk from the page's first key, so
   * its cost is the page's, not the whole kind's. (A sort of every matching object after any write
   * made the first list after the control plane's start-up writes take ~350 ms at 100,000 workers,
   * and the one-name readiness list waited behind it: a real API server answers it at once.)
   */
  private readonly sorted = new Map<string, string[]>();
  readonly namespaces: Set<string>;
  url = '';
  /** Requests that are answered 500 InternalError once each, as an API server in trouble would. */
  private readonly refusals: Array<(r: RecordedKubeRequest) => boolean> = [];

  /** The next request that matches is answered 500 InternalError (a test of what is tried again). */
  refuseNext(match: (r: RecordedKubeRequest) => boolean): void {
    this.refusals.push(match);
  }

  constructor(opts: { namespaces?: string[] } = {}) {
    this.namespaces = new Set(opts.namespaces ?? ['default']);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        if (err instanceof ApiError) sendJson(res, err.code, status(err.code, err.reason, err.message, err.details));
        else sendJson(res, 500, status(500, 'InternalError', (err as Error).message));
      });
    });
    this.url = await listen(this.server);
    this.bookmarks = setInterval(() => this.bookmark(), BOOKMARK_MS).unref();
    return this;
  }

  async stop() {
    clearInterval(this.bookmarks);
    if (this.server) await close(this.server);
  }

  /** Ends every open watch stream, as an API server's restart or a proxy's idle timeout does. */
  dropWatches(): number {
    const n = this.watches.size;
    for (const res of [...this.watches.keys()]) res.destroy();
    return n;
  }

  /**
   * How long a watch event takes to reach its watchers (a real API server's watch cache trails its
   * writes by a few ms, more under load): a write's own answer comes first. Order is kept.
   */
  watchLagMs = 0;

  /** Open watch streams (a replica that runs no pass should hold none). */
  get openWatches(): number {
    return this.watches.size;
  }

  /**
   * Ends every open watch with an ERROR event holding a 410 Expired Status, as an API server does
   * to a watcher whose resourceVersion it no longer has (its watch cache moved on), and compacts:
   * a watch from the old resourceVersion is refused the same way.
   */
  expireWatches(): number {
    this.compact();
    const n = this.watches.size;
    for (const res of [...this.watches.keys()])
      res.end(
        `${JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', `too old resource version: (${this.compacted})`) })}\n`,
      );
    return n;
  }

  /** Forgets the events so far, as etcd's compaction does: a watch from before them gets 410 Expired. */
  compact() {
    this.compacted = this.rv;
    this.history = [];
  }

  /** Sends a BOOKMARK (the current resourceVersion) to every open watch that asked for them. */
  bookmark() {
    for (const [res, w] of this.watches)
      if (w.bookmark && !res.writableEnded)
        res.write(
          `${JSON.stringify({
            type: 'BOOKMARK',
            object: w.meta
              ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: w.rv() } }
              : { metadata: { resourceVersion: w.rv() } },
          })}\n`,
        );
  }

  /** The list requests (not watches, not reads of one object) sent to a kind's collection. */
  listRequests(plural: string): RecordedKubeRequest[] {
    return this.requests.filter(
      (r) => r.method === 'GET' && r.path.endsWith(`/${plural}`) && r.query.watch !== 'true' && r.query.watch !== '1',
    );
  }

  /** A kubeconfig that points the official client at this server. */
  kubeconfig(namespace = 'default'): string {
    return JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'fake',
      // The client refuses plain http unless told to skip TLS verification.
      clusters: [{ name: 'fake', cluster: { server: this.url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'fake', user: { token: this.token } }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace } }],
    });
  }

  // In-process access for the fake kubelet and for assertions.
  list(kind: string, namespace?: string, selector?: string): KubeObject[] {
    const r = this.byKind(kind);
    const match = selector ? parseLabelSelector(selector) : () => true;
    return [...this.objects.values()]
      .filter(
        (o) =>
          o.kind === r.kind &&
          (namespace === undefined || o.metadata.namespace === namespace) &&
          match(o.metadata.labels ?? {}),
      )
      .map(clone);
  }

  get(kind: string, namespace: string, name: string): KubeObject | undefined {
    const o = this.objects.get(this.key(this.byKind(kind), namespace, name));
    return o && clone(o);
  }

  /** Everything stored, for "nothing left behind" assertions. */
  all(): KubeObject[] {
    return [...this.objects.values()].map(clone);
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Creates or replaces an object as a controller would (kubelet: pods; status writers). */
  put(obj: KubeObject): KubeObject {
    const r = this.byKind(obj.kind);
    const key = this.key(r, obj.metadata.namespace, obj.metadata.name);
    const old = this.objects.get(key);
    return this.store(
      r,
      key,
      { ...clone(obj), metadata: { ...obj.metadata, ...(old ? this.serverMeta(old) : {}) } },
      old,
    );
  }

  /**
   * Stores many objects at once, as a cluster that already runs them (bench:scale's 100,000
   * workers): server-set metadata added, no validation, no watch events, and no copy: objects
   * may share their spec (the caller never changes them afterwards; the fake replaces, never edits).
   */
  addMany(objects: Iterable<KubeObject>) {
    const created = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const touched = new Set<string[]>();
    for (const obj of objects) {
      const r = this.byKind(obj.kind);
      obj.apiVersion = apiVersionOf(r);
      Object.assign(obj.metadata, {
        uid: randomUUID(),
        creationTimestamp: created,
        generation: 1,
        resourceVersion: String(++this.rv),
      });
      if (r.status) obj.status ??= {};
      const key = this.key(r, obj.metadata.namespace, obj.metadata.name);
      if (!this.objects.has(key)) {
        const keys = this.keysOf(r);
        keys.push(this.orderKey(obj.metadata.namespace, obj.metadata.name));
        touched.add(keys);
      }
      this.objects.set(key, obj);
    }
    for (const keys of touched) keys.sort();
    // Without their events, a watch from before them would miss them: it must list again.
    this.compact();
  }

  /** Writes only the status of an object, as the status subresource does. */
  setStatus(kind: string, namespace: string, name: string, st: unknown): KubeObject | undefined {
    const r = this.byKind(kind);
    const key = this.key(r, namespace, name);
    const old = this.objects.get(key);
    if (!old) return undefined;
    return this.store(r, key, { ...clone(old), status: clone(st) }, old, { keepGeneration: true });
  }

  remove(kind: string, namespace: string, name: string): boolean {
    const r = this.byKind(kind);
    const key = this.key(r, namespace, name);
    const old = this.objects.get(key);
    if (!old) return false;
    this.objects.delete(key);
    const keys = this.keysOf(r);
    const k = this.orderKey(namespace, name);
    const at = lowerBound(keys, k);
    // The map and the sorted keys must agree: a miss here would make every later page wrong.
    if (keys[at] !== k) throw new Error(`fake API server: ${key} missing from its order`);
    keys.splice(at, 1);
    this.emit('DELETED', { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.rv) } });
    this.collectGarbage(old.metadata.uid!);
    return true;
  }

  private byKind(kind: string): Resource {
    const r = RESOURCES.find((x) => x.kind === kind);
    if (!r) throw new Error(`the fake API server does not serve ${kind}`);
    return r;
  }

  private key(r: Resource, ns: string | undefined, name: string) {
    return `${r.plural}/${ns ?? ''}/${name}`;
  }

  /** A list's order: namespace, then name (cluster-scoped objects have none). */
  private orderKey(ns: string | undefined, name: string) {
    return `${ns ?? ''}/${name}`;
  }

  private keysOf(r: Resource): string[] {
    let keys = this.sorted.get(r.plural);
    if (!keys) this.sorted.set(r.plural, (keys = []));
    return keys;
  }

  private serverMeta(o: KubeObject) {
    const { uid, creationTimestamp, generation, resourceVersion } = o.metadata;
    return { uid, creationTimestamp, generation, resourceVersion };
  }

  private emit(type: WatchEventType, obj: KubeObject) {
    this.history.push({ type, obj: clone(obj) });
    if (this.history.length > HISTORY) {
      const gone = this.history.splice(0, this.history.length - HISTORY);
      this.compacted = Number(gone.at(-1)!.obj.metadata.resourceVersion);
    }
    for (const l of [...this.listeners]) l(type, clone(obj));
  }

  private store(
    r: Resource,
    key: string,
    obj: KubeObject,
    old: KubeObject | undefined,
    o: { keepGeneration?: boolean } = {},
  ): KubeObject {
    if (r.kind === 'Secret') {
      // stringData is write-only: the server folds it into data, base64-encoded.
      const data = { ...(obj.data ?? {}) };
      for (const [k, v] of Object.entries(obj.stringData ?? {})) data[k] = Buffer.from(v, 'utf8').toString('base64');
      obj.data = data;
      delete obj.stringData;
      obj.type ??= 'Opaque';
    }
    if (r.kind === 'Service' && obj.spec) {
      obj.spec.clusterIP ??= old?.spec?.clusterIP ?? `10.96.${(this.rv >> 8) & 255}.${this.rv & 255}`;
      obj.spec.type ??= 'ClusterIP';
    }
    if ((r.kind === 'Deployment' || r.kind === 'StatefulSet') && obj.spec) obj.spec.replicas ??= 1;
    const specChanged =
      !old ||
      JSON.stringify(old.spec) !== JSON.stringify(obj.spec) ||
      JSON.stringify(old.data) !== JSON.stringify(obj.data);
    obj.apiVersion = apiVersionOf(r);
    obj.metadata.uid = old?.metadata.uid ?? randomUUID();
    obj.metadata.creationTimestamp =
      old?.metadata.creationTimestamp ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    obj.metadata.generation = (old?.metadata.generation ?? 0) + (!old || (specChanged && !o.keepGeneration) ? 1 : 0);
    obj.metadata.resourceVersion = String(++this.rv);
    if (r.status && obj.status === undefined) obj.status = old?.status ?? {};
    if (!old) {
      const keys = this.keysOf(r);
      const k = this.orderKey(obj.metadata.namespace, obj.metadata.name);
      keys.splice(lowerBound(keys, k), 0, k);
    }
    this.objects.set(key, obj);
    this.emit(old ? 'MODIFIED' : 'ADDED', obj);
    return clone(obj);
  }

  private collectGarbage(ownerUid: string) {
    for (const o of [...this.objects.values()]) {
      if (o.metadata.ownerReferences?.some((ref) => ref.uid === ownerUid))
        this.remove(o.kind, o.metadata.namespace!, o.metadata.name);
    }
  }

  private validate(r: Resource, obj: KubeObject, ns: string | undefined, name: string | undefined) {
    if (!obj || typeof obj !== 'object' || !obj.metadata || typeof obj.metadata.name !== 'string') {
      throw new ApiError(
        422,
        'Invalid',
        `${r.kind} is invalid: metadata.name: Required value: name or generateName is required`,
      );
    }
    // Typed endpoints default kind and apiVersion; a body naming another type is refused.
    obj.kind ??= r.kind;
    obj.apiVersion ??= apiVersionOf(r);
    if (obj.kind !== r.kind || obj.apiVersion !== apiVersionOf(r)) {
      throw new ApiError(
        400,
        'BadRequest',
        `the body of the request was in an unknown format: expected ${apiVersionOf(r)} ${r.kind}, got ${obj.apiVersion} ${obj.kind}`,
      );
    }
    if (name !== undefined && obj.metadata.name !== name) {
      throw new ApiError(
        400,
        'BadRequest',
        `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    if (obj.metadata.namespace !== undefined && obj.metadata.namespace !== ns) {
      throw new ApiError(
        400,
        'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    const pattern = r.kind === 'Service' ? DNS_LABEL : DNS_SUBDOMAIN;
    const max = r.kind === 'Service' ? 63 : 253;
    if (!pattern.test(obj.metadata.name) || obj.metadata.name.length > max) {
      throw new ApiError(
        422,
        'Invalid',
        `${r.kind} "${obj.metadata.name}" is invalid: metadata.name: Invalid value: "${obj.metadata.name}": must be a lowercase RFC 1123 ${r.kind === 'Service' ? 'label' : 'subdomain'}`,
        { name: obj.metadata.name, kind: r.plural },
      );
    }
    for (const [k, v] of Object.entries(obj.metadata.labels ?? {})) {
      if (typeof v !== 'string' || v.length > 63 || !/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(v)) {
        throw new ApiError(
          422,
          'Invalid',
          `${r.kind} "${obj.metadata.name}" is invalid: metadata.labels: Invalid value: "${v}" (label ${k})`,
        );
      }
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const u = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(u.searchParams);
    this.requests.push({
      method: req.method ?? 'GET',
      path: u.pathname,
      contentType: req.headers['content-type'],
      accept: req.headers.accept,
      query,
    });
    const refused = this.refusals.findIndex((m) => m(this.requests.at(-1)!));
    if (refused >= 0) {
      this.refusals.splice(refused, 1);
      throw new ApiError(500, 'InternalError', 'etcdserver: request timed out');
    }
    if (req.headers.authorization !== `Bearer ${this.token}`) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
    const body = (await readBody(req)).toString('utf8');
    const segs = u.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    // Discovery: /api/v1, /apis/{group}/{version}
    let group = '';
    let version = '';
    let rest: string[];
    if (segs[0] === 'api' && segs.length >= 2) {
      version = segs[1]!;
      rest = segs.slice(2);
    } else if (segs[0] === 'apis' && segs.length >= 3) {
      group = segs[1]!;
      version = segs[2]!;
      rest = segs.slice(3);
    } else {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    const inGroup = RESOURCES.filter((r) => r.group === group && r.version === version);
    if (!inGroup.length) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (!rest.length) {
      if (req.method !== 'GET')
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      return sendJson(res, 200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: group ? `${group}/${version}` : version,
        resources: inGroup.flatMap((r) => [
          {
            name: r.plural,
            singularName: r.kind.toLowerCase(),
            namespaced: r.namespaced,
            kind: r.kind,
            verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
          },
          ...(r.status
            ? [
                {
                  name: `${r.plural}/status`,
                  singularName: '',
                  namespaced: r.namespaced,
                  kind: r.kind,
                  verbs: ['get', 'patch', 'update'],
                },
              ]
            : []),
        ]),
      });
    }
    let ns: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      ns = rest[1];
      rest = rest.slice(2);
    }
    const r = inGroup.find((x) => x.plural === rest[0]);
    if (!r || rest.length > 3 || (rest.length === 3 && (rest[2] !== 'status' || !r.status))) {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    const name = rest[1];
    const sub = rest[2];
    if (ns !== undefined && !this.namespaces.has(ns) && req.method !== 'GET') {
      throw new ApiError(404, 'NotFound', `namespaces "${ns}" not found`, { name: ns, kind: 'namespaces' });
    }
    const notFound = () =>
      new ApiError(404, 'NotFound', `${r.plural}${r.group ? `.${r.group}` : ''} "${name}" not found`, {
        name,
        group: r.group,
        kind: r.plural,
      });

    if (name === undefined) {
      if (req.method === 'GET') {
        const match = parseLabelSelector(query.labelSelector ?? '');
        if (query.watch === 'true' || query.watch === '1') return this.watch(req, res, r, ns, match, query);
        const chunk = this.listChunk(r, ns, match, query);
        // Metadata only when asked for (Accept: application/json;as=PartialObjectMetadataList;…),
        // as kubectl and controllers list names.
        if (/;\s*as=PartialObjectMetadataList\b/.test(String(req.headers.accept ?? '')))
          return sendJson(res, 200, {
            kind: 'PartialObjectMetadataList',
            apiVersion: 'meta.k8s.io/v1',
            metadata: chunk.metadata,
            items: chunk.items.map((o) => ({
              kind: 'PartialObjectMetadata',
              apiVersion: 'meta.k8s.io/v1',
              metadata: o.metadata,
            })),
          });
        return sendJson(res, 200, { kind: `${r.kind}List`, apiVersion: apiVersionOf(r), ...chunk });
      }
      if (req.method === 'POST') {
        const obj = parse(body) as KubeObject;
        this.validate(r, obj, ns, undefined);
        const key = this.key(r, ns, obj.metadata.name);
        if (this.objects.has(key)) {
          throw new ApiError(
            409,
            'AlreadyExists',
            `${r.plural}${r.group ? `.${r.group}` : ''} "${obj.metadata.name}" already exists`,
            { name: obj.metadata.name, group: r.group, kind: r.plural },
          );
        }
        if (obj.metadata.resourceVersion)
          throw new ApiError(400, 'BadRequest', 'resourceVersion should not be set on objects to be created');
        const stored = this.store(r, key, { ...clone(obj), metadata: { ...obj.metadata, namespace: ns } }, undefined);
        return sendJson(res, 201, stored);
      }
      throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    }

    const key = this.key(r, ns, name);
    const existing = this.objects.get(key);
    if (req.method === 'GET') {
      if (!existing) throw notFound();
      return sendJson(res, 200, existing);
    }
    if (req.method === 'DELETE') {
      if (!existing) throw notFound();
      this.remove(r.kind, ns!, name);
      return sendJson(res, 200, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name, group: r.group, kind: r.plural, uid: existing.metadata.uid },
      });
    }
    if (req.method === 'PUT') {
      const obj = parse(body) as KubeObject;
      this.validate(r, obj, ns, name);
      if (!existing) throw notFound();
      if (obj.metadata.resourceVersion !== existing.metadata.resourceVersion) throw this.conflict(r, name);
      const next =
        sub === 'status'
          ? { ...clone(existing), status: obj.status }
          : { ...clone(obj), metadata: { ...obj.metadata, namespace: ns }, status: existing.status };
      return sendJson(res, 200, this.store(r, key, next, existing, { keepGeneration: sub === 'status' }));
    }
    if (req.method === 'PATCH') {
      const type = String(req.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim();
      const patch = parse(body) as KubeObject;
      if (type === 'application/apply-patch+yaml') {
        if (!query.fieldManager) {
          throw new ApiError(
            422,
            'Invalid',
            'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
          );
        }
        this.validate(r, patch, ns, name);
        if (
          patch.metadata.resourceVersion &&
          existing &&
          patch.metadata.resourceVersion !== existing.metadata.resourceVersion
        )
          throw this.conflict(r, name);
        if (!existing && patch.metadata.resourceVersion) throw notFound();
        // The applied configuration is the whole truth for this manager: fields it set before and
        // leaves out now are removed. Status and server-set metadata survive.
        const applied: KubeObject = { ...clone(patch), metadata: { ...clone(patch.metadata), namespace: ns } };
        if (sub === 'status') {
          if (!existing) throw notFound();
          return sendJson(
            res,
            200,
            this.store(r, key, { ...clone(existing), status: applied.status }, existing, { keepGeneration: true }),
          );
        }
        if (existing) applied.status = existing.status;
        applied.metadata.managedFields = [
          {
            manager: query.fieldManager,
            operation: 'Apply',
            apiVersion: apiVersionOf(r),
            time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
            fieldsType: 'FieldsV1',
          },
        ];
        const stored = this.store(r, key, applied, existing);
        return sendJson(res, existing ? 200 : 201, stored);
      }
      if (type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json') {
        if (!existing) throw notFound();
        if (patch?.metadata?.resourceVersion && patch.metadata.resourceVersion !== existing.metadata.resourceVersion)
          throw this.conflict(r, name);
        const base =
          sub === 'status'
            ? { ...clone(existing), status: mergePatch(existing.status, patch.status) }
            : mergePatch(existing, patch);
        return sendJson(res, 200, this.store(r, key, base, existing, { keepGeneration: sub === 'status' }));
      }
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
      );
    }
    throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }

  private conflict(r: Resource, name: string) {
    return new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${r.plural}${r.group ? `.${r.group}` : ''} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      { name, group: r.group, kind: r.plural },
    );
  }

  /**
   * A list's chunk as the API server pages it: in key order (namespace, then name), at most `limit`
   * items after the `continue` token's key; `metadata.continue` (an opaque token) when more follow,
   * and `remainingItemCount` beside it when the list has no label selector (the API server counts
   * only then). A token that is not one of ours is a 400 BadRequest. Walks the kind's sorted keys
   * from the page's first, so a page costs what it holds (plus the objects its selector skips).
   * The next page is read from the live keys after the token's, not from a snapshot at the token's
   * resourceVersion as etcd serves it: writes between pages show in later pages here. Berth's lists
   * take names as they come and reconcile again next pass, so they hold under either.
   */
  private listChunk(
    r: Resource,
    ns: string | undefined,
    match: (l: Record<string, string>) => boolean,
    query: Record<string, string>,
  ) {
    const keys = this.keysOf(r);
    // The namespace's keys are the range [ns/, ns0): '0' is the character after '/'.
    let from = ns === undefined ? 0 : lowerBound(keys, `${ns}/`);
    const end = ns === undefined ? keys.length : lowerBound(keys, `${ns}0`);
    if (query.continue) {
      let start: unknown;
      try {
        start = JSON.parse(Buffer.from(query.continue, 'base64').toString()).start;
      } catch {}
      if (typeof start !== 'string')
        throw new ApiError(
          400,
          'BadRequest',
          'continue key is not valid: the continue token is not one of this server',
        );
      from = Math.max(from, lowerBound(keys, start));
    }
    const limit = Number(query.limit);
    const paged = Number.isInteger(limit) && limit > 0;
    const metadata: Record<string, unknown> = { resourceVersion: String(this.rv) };
    const items: KubeObject[] = [];
    for (let i = from; i < end; i++) {
      const o = this.objects.get(`${r.plural}/${keys[i]}`)!;
      if (!match(o.metadata.labels ?? {})) continue;
      if (paged && items.length === limit) {
        metadata.continue = Buffer.from(
          JSON.stringify({ v: 'meta.k8s.io/v1', rv: this.rv, start: `${keys[i - 1]}\u0000` }),
        ).toString('base64');
        if (!query.labelSelector) metadata.remainingItemCount = end - i;
        break;
      }
      items.push(o);
    }
    return { metadata, items };
  }

  /**
   * A watch as the API server streams it: chunked, one JSON event a line. From a resourceVersion,
   * the events after it (then live ones); from one compacted away, an ERROR event holding a 410
   * Expired Status, and the stream ends. Metadata only when asked for (Accept: …;as=
   * PartialObjectMetadata), as metadata informers watch. BOOKMARKs when allowWatchBookmarks.
   */
  private watch(
    req: IncomingMessage,
    res: ServerResponse,
    r: Resource,
    ns: string | undefined,
    match: (l: Record<string, string>) => boolean,
    query: Record<string, string>,
  ) {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const meta = /;\s*as=PartialObjectMetadata\b(?!List)/.test(String(req.headers.accept ?? ''));
    const fromRv = query.resourceVersion;
    if (fromRv && fromRv !== '0' && Number(fromRv) < this.compacted) {
      res.end(
        `${JSON.stringify({
          type: 'ERROR',
          object: status(410, 'Expired', `too old resource version: ${fromRv} (${this.compacted})`),
        })}\n`,
      );
      return;
    }
    const send = (type: WatchEventType, obj: KubeObject) => {
      if (
        obj.kind !== r.kind ||
        (ns !== undefined && obj.metadata.namespace !== ns) ||
        !match(obj.metadata.labels ?? {}) ||
        res.writableEnded
      )
        return;
      const object = meta
        ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata }
        : obj;
      const line = `${JSON.stringify({ type, object })}\n`;
      if (this.watchLagMs <= 0) res.write(line);
      else setTimeout(() => res.writableEnded || res.write(line), this.watchLagMs);
    };
    // Without a resourceVersion a watch starts with the current state as ADDED events.
    if (!fromRv || fromRv === '0') for (const o of this.objects.values()) send('ADDED', o);
    else for (const e of this.history) if (Number(e.obj.metadata.resourceVersion) > Number(fromRv)) send(e.type, e.obj);
    const unsubscribe = this.subscribe(send);
    // A BOOKMARK carries the newest resourceVersion the server has, whether or not it matched.
    this.watches.set(res, { bookmark: query.allowWatchBookmarks === 'true', rv: () => String(this.rv), meta });
    const end = () => {
      unsubscribe();
      this.watches.delete(res);
    };
    req.on('close', end);
    res.on('close', end);
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Apply bodies are YAML; the client sends JSON, which is YAML too. Anything else is refused.
    throw new ApiError(400, 'BadRequest', 'the body of the request could not be decoded as JSON');
  }
}
