// The Kubernetes backend lists its workers a page at a time with the API server's own limit and
// continue (issue 30), driven by the official client against FakeKubernetes, which pages as a real
// API server does: in name order, metadata.continue while more follow, a foreign token a 400.
import { test } from 'node:test';
import { createServer } from 'node:http';
import assert from 'node:assert/strict';
import { ApiException, KubeConfig, type KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import type { FakeKubernetes } from '@berth/testkit';
import { KUBE_NS, dedicatedOptions, deployment, service, fakeApiForFile } from './helpers/fake-cluster.js';
import { createKubernetesWorkers } from '../src/workers/kubernetes/backend.js';
import { KubeApi } from '../src/workers/kubernetes/api.js';
import { labelsFor } from '../src/workers/kubernetes/manifests/labels.js';
import { agentHostManifests, agentHostSecret } from '../src/workers/kubernetes/manifests/agent-host.js';
import type { WorkerPlacementRepo } from '../src/platform/store/worker-placements.js';

const NS = KUBE_NS;
let api: FakeKubernetes;
let kc: KubeConfig;
let objects: KubernetesObjectApi;

fakeApiForFile((f) => ({ api, kc, objects } = f));

test('the fake pages a list as the API server does: name order, limit, continue; a foreign token is a 400', async () => {
  for (const n of ['w-echo', 'w-alpha', 'w-delta', 'w-bravo', 'w-charlie'])
    await objects.create(service(n, { paged: 'yes' }));
  const seen: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const res = await objects.list(
      'v1',
      'Service',
      NS,
      undefined,
      undefined,
      undefined,
      undefined,
      'paged=yes',
      2,
      token,
    );
    assert.ok(res.items.length <= 2);
    seen.push(...res.items.map((o) => o.metadata!.name!));
    token = res.metadata?._continue;
    pages++;
  } while (token && pages < 10);
  assert.deepEqual(seen, ['w-alpha', 'w-bravo', 'w-charlie', 'w-delta', 'w-echo']);
  assert.equal(pages, 3);
  await assert.rejects(
    objects.list('v1', 'Service', NS, undefined, undefined, undefined, undefined, 'paged=yes', 2, 'not-a-token'),
    (err) => err instanceof ApiException && err.code === 400,
  );
});

/** A dedicated-placement backend over the fake, as a control plane makes at start. */
const dedicatedWorkers = (namespace = NS) =>
  // The lists themselves: the watched set is kubernetes-watch.test's.
  createKubernetesWorkers({ ...dedicatedOptions(kc), namespace, watch: false });

test('the backend walks each kind page by page: every worker, no page over the limit', async () => {
  // Dedicated workers as Berth leaves them: a Deployment and a Service each, one left with only its
  // Service (a half-finished removal); none of them on a shared host.
  const names = ['asst-a1', 'asst-b2', 'asst-c3', 'asst-d4', 'asst-e5'];
  for (const n of names) {
    await objects.create(deployment(n, labelsFor('worker', n)));
    await objects.create(service(n, labelsFor('worker', n)));
  }
  await objects.create(service('asst-f6', labelsFor('worker', 'asst-f6')));
  const workers = dedicatedWorkers();
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await workers.listWorkers({ cursor, limit: 2 });
    assert.ok(page.names.length <= 2, `a page of ${page.names.length}`);
    for (const n of page.names) seen.add(n);
    cursor = page.next;
    pages++;
  } while (cursor !== undefined && pages < 20);
  assert.equal(cursor, undefined, 'the walk ends');
  assert.deepEqual([...seen].sort(), [...names, 'asst-f6']);
  assert.ok(pages >= 6, `Deployments and Services in pages of two (${pages})`);
  // Metadata only: the official client's list turned every whole object into model classes
  // (issue 30: seconds of CPU a pass, and long stalls, at 100,000 workers).
  const walked = api.requests.filter((r) => r.method === 'GET' && r.query.labelSelector?.includes('component=worker'));
  assert.ok(walked.length >= 6, `${walked.length} list requests`);
  for (const r of walked)
    assert.match(r.accept ?? '', /^application\/json;as=PartialObjectMetadataList;g=meta\.k8s\.io;v=v1/);
  await assert.rejects(workers.listWorkers({ cursor: 'garbage' }), /not a cursor of this list/);
});

test('a shared host whose list fails after its first page stops the walk: the rest of its workers do not look vanished', async () => {
  // One shared host, holding four assistants, that answers its first page and then fails: a
  // pass that took the failed page for "no more" would redeploy asst-h3 and asst-h4.
  const ctx = {
    namespace: NS,
    agentImage: 'agent:1',
    controlPlaneNamespace: 'berth',
    controlPlaneLabels: { app: 'berth' },
  };
  await objects.create(agentHostManifests(ctx, 1).statefulSet as KubernetesObject);
  await objects.create(agentHostSecret(ctx, 'host-admin-token') as KubernetesObject);
  const held = ['asst-h1', 'asst-h2', 'asst-h3', 'asst-h4'];
  let failFrom = Number.POSITIVE_INFINITY;
  const asked: string[] = [];
  const host = createServer((req, res) => {
    const url = new URL(req.url!, 'http://host');
    asked.push(url.search);
    const after = url.searchParams.get('after');
    const start = after ? held.indexOf(after) + 1 : 0;
    if (req.headers.authorization !== 'Bearer host-admin-token' || asked.length >= failFrom) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"UNAVAILABLE"}}');
      return;
    }
    const limit = Number(url.searchParams.get('limit'));
    const agents = held.slice(start, start + limit).map((name) => ({ name }));
    const next = start + limit < held.length ? agents.at(-1)!.name : undefined;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ agents, next }));
  });
  await new Promise<void>((ok) => host.listen(0, '127.0.0.1', ok));
  const { port } = host.address() as { port: number };
  const workers = createKubernetesWorkers({
    kubeConfig: kc,
    ...ctx,
    placement: 'shared',
    hostCapacity: 10,
    placements: {} as WorkerPlacementRepo,
    now: () => new Date(),
    urlFor: () => `http://127.0.0.1:${port}`,
  });
  const walk = async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await workers.listWorkers({ cursor, limit: 2 });
      seen.push(...page.names);
      cursor = page.next;
    } while (cursor !== undefined);
    return seen;
  };
  try {
    // Whole, the walk reports every assistant the host holds (besides the dedicated kinds' pages).
    for (const n of held) assert.ok((await walk()).includes(n), n);
    // Failing at its second page, the walk is an error, not a list without asst-h3 and asst-h4.
    asked.length = 0;
    failFrom = 2;
    await assert.rejects(walk(), /shared host 0 did not answer its worker list/);
    assert.equal(asked.length, 2, 'the first page was read, the second failed');
    // A host that fails at its first page reports nothing (it may be restarting), as before.
    asked.length = 0;
    failFrom = 1;
    const seen = await walk();
    for (const n of held) assert.ok(!seen.includes(n), n);
  } finally {
    host.close();
  }
});

test("a 200 that is not a list (a proxy's login page) is an error, not an empty list of workers", async () => {
  const bodies = [
    '<html><body>Sign in</body></html>',
    '{"kind":"Status","status":"Success"}',
    '{"kind":"DeploymentList","items":{}}',
  ];
  let i = 0;
  const proxy = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(bodies[i++ % bodies.length]);
  });
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
  try {
    const { port } = proxy.address() as { port: number };
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'a-service-account-token' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u', namespace: NS }],
      currentContext: 'x',
    });
    const kube = new KubeApi(config, NS);
    for (const _ of bodies)
      await assert.rejects(kube.listMetadataPage('apps/v1', 'deployments', 'app=berth'), /not a list/);
    // A real list, metadata only or whole (the Accept header's fallback), still reads.
    const real = new KubeApi(kc, NS);
    assert.ok(Array.isArray((await real.listMetadataPage('apps/v1', 'deployments', 'app=berth')).items));
  } finally {
    proxy.close();
  }
});

test("the first lists at once (the start-up pass's and another caller's) apply the agents' NetworkPolicy once", async () => {
  const workers = dedicatedWorkers();
  const policies = () => api.requests.filter((r) => r.method !== 'GET' && r.path.includes('/networkpolicies')).length;
  const before = policies();
  await Promise.all([workers.listWorkers({ limit: 1 }), workers.listWorkers({ limit: 1 }), workers.listWorkers()]);
  await workers.listWorkers({ limit: 1 });
  assert.equal(policies() - before, 1);
});

test('a failed apply of the namespace objects is tried again by the next caller, not kept', async () => {
  const workers = dedicatedWorkers();
  const isPolicy = (r: { method: string; path: string }) => r.method !== 'GET' && r.path.includes('/networkpolicies');
  api.refuseNext(isPolicy);
  await assert.rejects(workers.listWorkers({ limit: 1 }));
  const before = api.requests.filter(isPolicy).length;
  await workers.listWorkers({ limit: 1 });
  assert.equal(api.requests.filter(isPolicy).length - before, 1, 'the next list applies the policy again');
});

test("readiness's probe of the backend is one list of one name, with no write, and fails when the API server does", async () => {
  const workers = dedicatedWorkers();
  const writes = () => api.requests.filter((r) => r.method !== 'GET').length;
  const lists = () => api.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/deployments'));
  const [w, l] = [writes(), lists().length];
  await workers.reachable!();
  assert.equal(writes() - w, 0, 'no namespace object applied on the way');
  assert.equal(lists().length - l, 1);
  const probe = lists().at(-1)!;
  assert.equal(probe.query.limit, '1');
  assert.match(probe.accept ?? '', /;\s*as=PartialObjectMetadataList\b/, 'metadata only, not whole Deployments');
  assert.ok(probe.query.labelSelector, "only the workers' own Deployments");
  api.refuseNext((r) => r.method === 'GET' && r.path.endsWith('/deployments'));
  await assert.rejects(workers.reachable!());
});

test('readiness fails while the namespace objects cannot be applied, and recovers once they can', async () => {
  const ns = 'workers-not-yet';
  const workers = dedicatedWorkers(ns);
  // Reads of a namespace that does not exist answer (an empty list); writes there are refused.
  await assert.rejects(workers.listWorkers({ limit: 1 }), 'the pass cannot apply the NetworkPolicy');
  await assert.rejects(workers.reachable!(), 'so the backend is not ready');
  api.namespaces.add(ns);
  // No pass needed: a replica that does not hold the reconciler's lease runs none after its start.
  await workers.reachable!();
  const writes = () => api.requests.filter((r) => r.method !== 'GET').length;
  const w = writes();
  await workers.reachable!();
  assert.equal(writes() - w, 0, 'once applied, the probe writes nothing');
});

test("a replica whose apply failed is ready once the objects can be applied, though another replica's pass applied them", async () => {
  const [leader, other] = [dedicatedWorkers(), dedicatedWorkers()];
  api.refuseNext((r) => r.method !== 'GET' && r.path.includes('/networkpolicies'));
  await assert.rejects(other.listWorkers({ limit: 1 }), "the other replica's start-up apply fails once");
  await leader.listWorkers({ limit: 1 });
  await leader.reachable!();
  // The other replica runs no pass (not the leader): its own probe must not keep the old error.
  await other.reachable!();
});
