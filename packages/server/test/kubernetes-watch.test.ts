// The Kubernetes backend keeps its dedicated workers' names as an informer does (issue 30): one
// list, then a watch from its resourceVersion, so a reconcile pass reads them without listing the
// API server; and never from a set that may have missed an event (a dropped stream, a 410 Expired):
// meanwhile the walk lists as before. Against FakeKubernetes, which streams watches as the API
// server does (chunked JSON lines, BOOKMARKs, an ERROR event of a 410 Status when expired).
import { test, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { getEventListeners } from 'node:events';
import { KUBE_NS as NS, dedicatedOptions, deployment, service, startFakeApi } from './helpers/fake-cluster.js';
import { until } from './helpers/until.js';
import { createKubernetesWorkers } from '../src/workers/kubernetes/backend.js';
import { KubeApi } from '../src/workers/kubernetes/api.js';
import type { WatchedNamesOptions } from '../src/workers/kubernetes/watched-names.js';
import { labelsFor } from '../src/workers/kubernetes/manifests/labels.js';
import { workerPages } from '../src/workers/port.js';

const { api, kc, objects } = await startFakeApi();
after(() => api.stop());

const worker = async (name: string) => {
  await objects.create(deployment(name, labelsFor('worker', name)));
  await objects.create(service(name, labelsFor('worker', name)));
};
/** Deleted behind Berth's back (kubectl delete deploy,svc). */
const vanish = (name: string) => {
  api.remove('Deployment', NS, name);
  api.remove('Service', NS, name);
};

/** Each test's backends are closed at its end: another's relist would count as a list of this one's. */
const open: Array<{ close?(): void }> = [];
afterEach(() => {
  for (const b of open.splice(0)) b.close?.();
});
const backend = (watch: WatchedNamesOptions = {}) => {
  const b = createKubernetesWorkers({ ...dedicatedOptions(kc), watch });
  open.push(b);
  return b;
};

/** The API server's list requests of the workers' kinds so far. */
const lists = () => api.listRequests('deployments').length + api.listRequests('services').length;

/** One whole walk, as a pass makes it: the names, and how many list requests it sent. */
async function walk(workers: ReturnType<typeof backend>) {
  const before = lists();
  const names = new Set<string>();
  for await (const page of workerPages(workers)) for (const n of page) names.add(n);
  return { names, listed: lists() - before };
}

const watching = (workers: ReturnType<typeof backend>) =>
  until('the set to be watched (a walk without a list)', async () => (await walk(workers)).listed === 0 || undefined);

test('the fake streams a watch as the API server does: replayed from a resourceVersion, 410 Expired once compacted', async () => {
  const page = await fetchJson(`/apis/apps/v1/namespaces/${NS}/deployments?limit=1`);
  const rv = page.metadata.resourceVersion as string;
  assert.match(rv, /^\d+$/, 'a list carries its resourceVersion');
  await worker('asst-fake1');
  const lines = await watchLines(`/apis/apps/v1/namespaces/${NS}/deployments?watch=1&resourceVersion=${rv}`, 1);
  assert.equal(lines[0].type, 'ADDED');
  assert.equal(lines[0].object.metadata.name, 'asst-fake1');
  assert.equal(lines[0].object.kind, 'PartialObjectMetadata', 'metadata only, as asked');
  assert.ok(Number(lines[0].object.metadata.resourceVersion) > Number(rv));
  api.compact();
  const expired = await watchLines(`/apis/apps/v1/namespaces/${NS}/deployments?watch=1&resourceVersion=${rv}`, 1);
  assert.equal(expired[0].type, 'ERROR');
  assert.equal(expired[0].object.code, 410);
  assert.equal(expired[0].object.reason, 'Expired');
  vanish('asst-fake1');
});

test("the first walk waits for the set's first list and is answered from it (one list a kind, not two); once watched, it sends no list", async () => {
  await worker('asst-w1');
  await worker('asst-w2');
  const from = api.requests.length;
  const workers = backend();
  const first = await walk(workers);
  // Without the wait the walk listed both kinds itself beside the set's own list: 4 lists, and at
  // 100,000 workers 2,000 more pages in the start-up pass.
  assert.equal(first.listed, 2, "the set's own list, one page a kind, and no other");
  assert.deepEqual([...first.names].sort(), ['asst-w1', 'asst-w2']);
  await watching(workers);
  await worker('asst-w3');
  vanish('asst-w1');
  const seen = await until('the watch to bring the changes', async () => {
    const w = await walk(workers);
    assert.equal(w.listed, 0, 'answered from the watched set');
    return [...w.names].sort().join() === 'asst-w2,asst-w3' || undefined;
  });
  assert.ok(seen);
  const watches = api.requests.slice(from).filter((r) => r.query.watch === '1' && r.path.endsWith('/deployments'));
  assert.ok(watches.length >= 1);
  for (const r of watches) {
    assert.equal(r.query.allowWatchBookmarks, 'true');
    assert.ok(r.query.resourceVersion, 'from the list: nothing between the two is missed');
    assert.match(r.query.labelSelector ?? '', /component=worker/);
    assert.match(r.accept ?? '', /;as=PartialObjectMetadata;/);
  }
  vanish('asst-w2');
  vanish('asst-w3');
});

test('a dropped watch stream takes the set out of use (the walk lists again), then it is listed and watched anew', async () => {
  await worker('asst-d1');
  await worker('asst-d2');
  // A long pause before the relist: the walks in between must not answer from the stale set.
  const workers = backend({ backoffMs: 4000 });
  await walk(workers);
  await watching(workers);
  assert.ok(api.dropWatches() >= 2, 'both kinds watched');
  vanish('asst-d1');
  const gap = await until(
    'the walk to list again',
    async () => {
      const w = await walk(workers);
      return w.listed > 0 ? w : undefined;
    },
    2000,
  );
  assert.deepEqual([...gap.names], ['asst-d2'], 'listed: right, not the stale set');
  await watching(workers);
  assert.deepEqual([...(await walk(workers)).names], ['asst-d2']);
  vanish('asst-d2');
});

test('a 410 Expired on the watch relists (the old resourceVersion is gone), says so, and recovers', async () => {
  await worker('asst-x1');
  const said: Array<{ kind: string; reason: string; retryInMs: number }> = [];
  const workers = backend({ backoffMs: 50, log: { warn: (o) => said.push(o as (typeof said)[number]) } });
  await walk(workers);
  await watching(workers);
  assert.equal(said.length, 0, 'a healthy watch says nothing');
  assert.ok(api.expireWatches() >= 2);
  await until('the failures to be said', () => said.length >= 2 || undefined);
  assert.deepEqual(said.map((o) => o.kind).sort(), ['deployments', 'services']);
  assert.match(said[0]!.reason, /410|Expired/);
  assert.equal(said[0]!.retryInMs, 50);
  vanish('asst-x1');
  await worker('asst-x2');
  await watching(workers);
  assert.deepEqual([...(await walk(workers)).names], ['asst-x2']);
  vanish('asst-x2');
});

test("a worker this control plane removes is out of the next walk at once, before its watch's event", async () => {
  await worker('asst-r1');
  const workers = backend();
  await walk(workers);
  await watching(workers);
  api.watchLagMs = 500;
  try {
    assert.equal(await workers.deleteWorker('asst-r1'), 'deleted');
    const w = await walk(workers);
    assert.equal(w.listed, 0);
    assert.deepEqual([...w.names], []);
    assert.equal(await workers.stillRuns!('asst-r1'), false);
  } finally {
    api.watchLagMs = 0;
  }
});

test("readiness's probe is still one list of one name, and starts no watch; an unused backend's watch stops", async () => {
  const workers = backend({ idleMs: 400 });
  const watches = () => api.requests.filter((r) => r.query.watch === '1').length;
  const [l, w] = [lists(), watches()];
  await workers.reachable!();
  assert.equal(lists() - l, 1);
  assert.equal(watches() - w, 0, 'a replica that runs no pass holds no watch');
  await walk(workers);
  await watching(workers);
  assert.equal(api.openWatches, 2, 'one watch a listed kind');
  // No pass for a while: this replica lost the reconciler's lease.
  await until('the unused watches to stop', () => api.openWatches === 0 || undefined, 3000);
});

async function fetchJson(path: string): Promise<any> {
  const res = await fetch(`${api.url}${path}`, {
    headers: { authorization: `Bearer ${api.token}`, accept: 'application/json' },
  });
  return res.json();
}

/** The first `n` events of a watch (metadata only), then the stream is closed. */
function watchLines(path: string, n: number): Promise<any[]> {
  return new Promise((ok, fail) => {
    const req = request(
      `${api.url}${path}`,
      {
        headers: {
          authorization: `Bearer ${api.token}`,
          accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
          const lines = text.split('\n').filter(Boolean);
          if (lines.length >= n) {
            req.destroy();
            ok(lines.slice(0, n).map((l) => JSON.parse(l)));
          }
        });
        res.on('end', () => fail(new Error(`the watch ended after: ${text}`)));
      },
    );
    req.on('error', (err) => (req.destroyed ? undefined : fail(err)));
    req.end();
  });
}

test('a watch that ends, however it ends, leaves no listener on the signal it was given (the signal outlives it)', async () => {
  const kube = new KubeApi(kc, NS);
  const rv = (await fetchJson(`/apis/apps/v1/namespaces/${NS}/deployments?limit=1`)).metadata.resourceVersion as string;
  const stop = new AbortController();
  const ended = (watch: Promise<void>) =>
    watch.then(
      () => 'ended',
      () => 'failed',
    );
  // The stream dropped by the API server, once it has answered (an event replayed).
  await worker('asst-lstn1');
  let events = 0;
  const dropped = ended(kube.watchMetadata('apps/v1', 'deployments', '', rv, () => events++, stop.signal));
  await until('the watch to answer', () => events > 0 || undefined);
  assert.equal(getEventListeners(stop.signal, 'abort').length, 1, 'listening while it runs');
  api.dropWatches();
  assert.equal(await dropped, 'failed');
  assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
  // Refused (an ERROR event of a 410 Status, then the end), and the one who watched stopping it.
  api.compact();
  assert.equal(await ended(kube.watchMetadata('apps/v1', 'deployments', '', rv, () => {}, stop.signal)), 'ended');
  assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
  const rv2 = (await fetchJson(`/apis/apps/v1/namespaces/${NS}/deployments?limit=1`)).metadata
    .resourceVersion as string;
  await worker('asst-lstn2');
  events = 0;
  const stopped = ended(kube.watchMetadata('apps/v1', 'deployments', '', rv2, () => events++, stop.signal));
  await until('the watch to answer', () => events > 0 || undefined);
  stop.abort();
  // Ended or failed (the socket destroyed under a flowing response), it settles; the set checks its
  // signal either way.
  assert.ok(['ended', 'failed'].includes(await stopped));
  assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
});
