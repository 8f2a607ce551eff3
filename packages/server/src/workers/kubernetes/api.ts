// The few calls the backend makes to the Kubernetes API, through the official client: server-side
// apply for everything Berth owns, create-if-absent for values that must not be overwritten,
// reads, label-selected lists and deletes that treat 404 as done; and, for the reconciler's list of
// names, a list of metadata only.
import http from 'node:http';
import https from 'node:https';
import {
  ApiException,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  ServerConfiguration,
  createConfiguration,
  type KubernetesObject,
  type V1ObjectMeta,
} from '@kubernetes/client-node';
import { WorkerUpstreamError } from '../port.js';

export const FIELD_MANAGER = 'berth-control-plane';

export type Ref = { apiVersion: string; kind: string; name: string };

export function loadKubeConfig(): KubeConfig {
  // In a pod: the service account; elsewhere: KUBECONFIG or ~/.kube/config, as kubectl does.
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}

/**
 * How long one request through the official client may go without its whole answer (the
 * metadata list and its pages: without a byte). The client sets no deadline of its own: an API
 * server that accepts the connection and never answers (a stuck apiserver, a load balancer holding
 * the socket) would hold a reconcile pass, a deploy, and the shutdown that waits for them, for
 * ever (decision 0030).
 */
export const CALL_DEADLINE_MS = 30_000;

function upstream(err: unknown, what: string, deadlineMs: number): WorkerUpstreamError {
  if (err instanceof ApiException) {
    const message =
      (err.body as { message?: string } | undefined)?.message ??
      (typeof err.body === 'string' ? err.body : err.message);
    return new WorkerUpstreamError(err.code >= 500 ? 503 : err.code, `Kubernetes refused to ${what}: ${message}`);
  }
  // node-fetch's AbortError: the deadline below ran out (it carries no reason of its own).
  const why = (err as Error).name === 'AbortError' ? `no answer within ${deadlineMs / 1000} s` : (err as Error).message;
  const e = new WorkerUpstreamError(503, `the Kubernetes API could not be reached to ${what} (${why})`);
  return Object.assign(e, { code: 'ECONNREFUSED' });
}

/**
 * Metadata only, as kubectl and controllers list names (PartialObjectMetadataList); the whole list
 * from a server that cannot (Accept's second choice).
 */
const METADATA_ONLY = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
/** A watch's events, metadata only (PartialObjectMetadata), as client-go's metadata informers watch. */
const WATCH_METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** The official client's object API, as its makeApiClient builds it, plus a deadline on each request. */
class DeadlinedObjectApi extends KubernetesObjectApi {
  static make(kc: KubeConfig, deadlineMs: number): KubernetesObjectApi {
    const server = kc.getCurrentCluster()?.server;
    if (!server) throw new Error('No active cluster!');
    const client = new DeadlinedObjectApi(
      createConfiguration({
        baseServer: new ServerConfiguration(server, {}),
        authMethods: { default: kc },
        // Each request it sends, the resource discovery a call may make first included.
        promiseMiddleware: [
          {
            pre: async (request) => {
              request.setSignal(AbortSignal.timeout(deadlineMs));
              return request;
            },
            post: async (response) => response,
          },
        ],
      }),
    );
    client.setDefaultNamespace(kc);
    return client;
  }
}

export class KubeApi {
  private readonly objects: KubernetesObjectApi;
  /** The connection pool of metadata lists (the TLS settings of the kubeconfig's cluster). */
  private agent: http.Agent | undefined;
  /** The client credentials the kept agent was made with (a kubeconfig's exec plugin rotates them). */
  private agentCredentials: string | undefined;

  constructor(
    private readonly kc: KubeConfig,
    readonly namespace: string,
    private readonly deadlineMs = CALL_DEADLINE_MS,
  ) {
    this.objects = DeadlinedObjectApi.make(kc, deadlineMs);
  }

  async apply<T extends KubernetesObject>(obj: T): Promise<T> {
    try {
      return await this.objects.patch(obj, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
    } catch (err) {
      throw upstream(err, `apply ${obj.kind} ${obj.metadata?.name}`, this.deadlineMs);
    }
  }

  /** Creates the object unless one of that name exists; resolves with what is stored either way. */
  async createOrGet<T extends KubernetesObject>(obj: T): Promise<T> {
    try {
      return await this.objects.create(obj, undefined, undefined, FIELD_MANAGER);
    } catch (err) {
      if (!(err instanceof ApiException) || err.code !== 409)
        throw upstream(err, `create ${obj.kind} ${obj.metadata?.name}`, this.deadlineMs);
    }
    const found = await this.read<T>({ apiVersion: obj.apiVersion!, kind: obj.kind!, name: obj.metadata!.name! });
    if (!found)
      throw new WorkerUpstreamError(503, `${obj.kind} ${obj.metadata?.name} vanished while it was being created`);
    return found;
  }

  async read<T extends KubernetesObject>(ref: Ref): Promise<T | undefined> {
    try {
      const header: Parameters<KubernetesObjectApi['read']>[0] = {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: ref.name, namespace: this.namespace },
      };
      return (await this.objects.read(header)) as T;
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return undefined;
      throw upstream(err, `read ${ref.kind} ${ref.name}`, this.deadlineMs);
    }
  }

  /** Resolves false when there was nothing to delete. */
  async remove(ref: Ref): Promise<boolean> {
    try {
      await this.objects.delete(
        { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: this.namespace } },
        undefined,
        undefined,
        undefined,
        undefined,
        'Background',
      );
      return true;
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return false;
      throw upstream(err, `delete ${ref.kind} ${ref.name}`, this.deadlineMs);
    }
  }

  async list<T extends KubernetesObject>(apiVersion: string, kind: string, labelSelector: string): Promise<T[]> {
    return (await this.listPage<T>(apiVersion, kind, labelSelector)).items;
  }

  /** One page of a list: the API server's own `limit` and `continue` (metadata.continue when more follow). */
  async listPage<T extends KubernetesObject>(
    apiVersion: string,
    kind: string,
    labelSelector: string,
    page: { limit?: number; continue?: string } = {},
  ): Promise<{ items: T[]; continue?: string }> {
    try {
      const res = await this.objects.list<T>(
        apiVersion,
        kind,
        this.namespace,
        undefined,
        undefined,
        undefined,
        undefined,
        labelSelector,
        page.limit,
        page.continue,
      );
      // The client's name for the list's metadata.continue.
      const next = res.metadata?._continue;
      return next ? { items: res.items, continue: next } : { items: res.items };
    } catch (err) {
      throw upstream(err, `list ${kind}`, this.deadlineMs);
    }
  }

  /**
   * One page of a list, metadata only (`plural`: the resource's path name). The official client's
   * list converts every whole object into its model classes: at 100,000 Deployments and Services,
   * a reconcile pass spent seconds of CPU and held the event loop for hundreds of milliseconds a
   * page there (issue 30). Here a page is one JSON.parse of names and labels.
   */
  async listMetadataPage(
    apiVersion: string,
    plural: string,
    labelSelector: string,
    page: { limit?: number; continue?: string } = {},
  ): Promise<{ items: Array<{ metadata?: V1ObjectMeta }>; continue?: string; resourceVersion?: string }> {
    const url = this.collectionUrl(apiVersion, plural, labelSelector);
    if (page.limit) url.searchParams.set('limit', String(page.limit));
    if (page.continue) url.searchParams.set('continue', page.continue);
    let reply: { status: number; text: string };
    try {
      reply = await new Promise((ok, fail) => {
        this.send(url, METADATA_ONLY, fail, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => ok({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', fail);
        })
          .then((req) =>
            req.setTimeout(this.deadlineMs, () =>
              req.destroy(new Error(`no answer within ${this.deadlineMs / 1000} s`)),
            ),
          )
          .catch(fail);
      });
    } catch (err) {
      throw upstream(err, `list ${plural}`, this.deadlineMs);
    }
    let body: any;
    try {
      body = JSON.parse(reply.text);
    } catch {}
    if (reply.status !== 200)
      throw new WorkerUpstreamError(
        reply.status >= 500 ? 503 : reply.status,
        `Kubernetes refused to list ${plural}: ${body?.message ?? `status ${reply.status}`}`,
      );
    // A 200 that is not a list (a proxy's login page, a truncated body) must not read as "no
    // workers": the pass would take every worker for vanished.
    if (
      typeof body?.kind !== 'string' ||
      !body.kind.endsWith('List') ||
      !(body.items === null || Array.isArray(body.items))
    )
      throw new WorkerUpstreamError(503, `Kubernetes answered the list of ${plural} with something that is not a list`);
    const next = body.metadata?.continue;
    const rv = typeof body.metadata?.resourceVersion === 'string' ? body.metadata.resourceVersion : undefined;
    return { items: body.items ?? [], ...(next ? { continue: next } : {}), ...(rv ? { resourceVersion: rv } : {}) };
  }

  /**
   * A watch of the kind's objects, metadata only, from `resourceVersion` (that of a list), with
   * BOOKMARKs: each event (one JSON line of the chunked answer) to `onEvent`, as it comes.
   * Resolves when the stream ends (the server closed it, `signal` aborted it); rejects when it
   * could not be opened, was refused, broke, or sent a line that is not an event.
   */
  async watchMetadata(
    apiVersion: string,
    plural: string,
    labelSelector: string,
    resourceVersion: string,
    onEvent: (e: { type: string; object?: { metadata?: V1ObjectMeta; code?: number } }) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const url = this.collectionUrl(apiVersion, plural, labelSelector);
    url.searchParams.set('watch', '1');
    url.searchParams.set('resourceVersion', resourceVersion);
    url.searchParams.set('allowWatchBookmarks', 'true');
    // Removed when the watch settles: the signal may outlive the watch (the deadline that the
    // set's closing or the watch's own end aborts), and a listener left on it keeps the request
    // and its socket reachable for as long as the set runs, one per watch.
    let abort: (() => void) | undefined;
    try {
      await new Promise<void>((ok, fail) => {
        this.send(url, WATCH_METADATA_ONLY, fail, (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            fail(new WorkerUpstreamError(res.statusCode === 410 ? 410 : 503, `watch of ${plural}: ${res.statusCode}`));
            return;
          }
          let rest = '';
          res.setEncoding('utf8');
          res.on('data', (text: string) => {
            const lines = (rest + text).split('\n');
            rest = lines.pop()!;
            try {
              for (const line of lines) if (line.trim()) onEvent(JSON.parse(line));
            } catch (err) {
              res.destroy(err as Error);
            }
          });
          res.on('end', () => ok());
          res.on('error', fail);
          res.on('close', () => (signal.aborted ? ok() : fail(new Error(`the watch of ${plural} broke`))));
        })
          .then((req) => {
            // Not what keeps the process running (a CLI's backend, a test's).
            req.on('socket', (s) => s.unref());
            abort = () => req.destroy();
            if (signal.aborted) abort();
            signal.addEventListener('abort', abort, { once: true });
          })
          .catch(fail);
      });
    } finally {
      if (abort) signal.removeEventListener('abort', abort);
    }
  }

  private collectionUrl(apiVersion: string, plural: string, labelSelector: string) {
    const server = this.kc.getCurrentCluster()?.server?.replace(/\/$/, '');
    const root = apiVersion.includes('/') ? 'apis' : 'api';
    const url = new URL(`${server}/${root}/${apiVersion}/namespaces/${encodeURIComponent(this.namespace)}/${plural}`);
    url.searchParams.set('labelSelector', labelSelector);
    return url;
  }

  /** A GET with the kubeconfig's credentials, through the one kept agent (connections kept alive). */
  private async send(
    url: URL,
    accept: string,
    fail: (err: Error) => void,
    onResponse: (res: http.IncomingMessage) => void,
  ): Promise<http.ClientRequest> {
    const opts: https.RequestOptions = { method: 'GET', headers: { accept } };
    // Headers each time (a token may be refreshed).
    await this.kc.applyToHTTPSOptions(opts);
    const fresh = opts.agent as https.Agent | undefined;
    const credentials = [fresh?.options?.ca, fresh?.options?.cert, fresh?.options?.key].map(String).join('\n');
    if (this.agent === undefined || credentials !== this.agentCredentials) {
      this.agent?.destroy();
      this.agent = fresh;
      this.agentCredentials = credentials;
    }
    opts.agent = this.agent;
    const req = (url.protocol === 'https:' ? https : http).request(url, opts, onResponse);
    req.on('error', fail).end();
    return req;
  }
}
