// The Kubernetes API fake, driven by the official client: the REST semantics the backend relies on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  type KubernetesObjectApi,
  PatchStrategy,
  Watch,
  type V1Deployment,
} from '@kubernetes/client-node';
import type { FakeKubernetes } from '@berth/testkit';
import { KUBE_NS, fakeApiForFile } from './helpers/fake-cluster.js';
import { until } from './helpers/until.js';

const NS = KUBE_NS;
let api: FakeKubernetes;
let kc: KubeConfig;
let objects: KubernetesObjectApi;

fakeApiForFile((f) => ({ api, kc, objects } = f));

async function code(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    assert.ok(err instanceof ApiException, String(err));
    return err.code;
  }
}

const deployment = (name: string, labels: Record<string, string>, image = 'agent:1'): V1Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: NS, labels },
  spec: {
    selector: { matchLabels: labels },
    template: { metadata: { labels }, spec: { containers: [{ name: 'a', image }] } },
  },
});

/** Server-side apply of `d` as field manager "test", with force (conflicts overridden). */
const apply = (d: V1Deployment) => objects.patch(d, undefined, undefined, 'test', true, PatchStrategy.ServerSideApply);

test('create: real-shaped metadata; a second create is 409 AlreadyExists; a missing object is 404', async () => {
  const core = kc.makeApiClient(CoreV1Api);
  const s = await core.createNamespacedSecret({
    namespace: NS,
    body: { metadata: { name: 'one' }, stringData: { k: 'v' } },
  });
  assert.match(s.metadata!.uid!, /^[0-9a-f-]{36}$/);
  assert.match(s.metadata!.resourceVersion!, /^\d+$/);
  assert.ok(s.metadata!.creationTimestamp instanceof Date);
  assert.equal(Buffer.from(s.data!.k!, 'base64').toString(), 'v', 'stringData folds into data');
  assert.equal(s.stringData, undefined);
  const again = await code(core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'one' } } }));
  assert.equal(again, 409);
  assert.equal(await code(core.readNamespacedSecret({ namespace: NS, name: 'nope' })), 404);
  assert.equal(
    await code(core.createNamespacedSecret({ namespace: 'elsewhere', body: { metadata: { name: 'x' } } })),
    404,
    'unknown namespace',
  );
  assert.equal(
    await code(core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'Not_A_Name' } } })),
    422,
  );
});

test('server-side apply: needs a field manager; creates, then updates; generation moves only with the spec', async () => {
  const d = deployment('web', { app: 'web' });
  assert.equal(await code(objects.patch(d, undefined, undefined, undefined, true, PatchStrategy.ServerSideApply)), 422);
  const created = await apply(d);
  assert.equal(created.metadata!.generation, 1);
  const same = await apply(d);
  assert.equal(same.metadata!.generation, 1);
  assert.ok(Number(same.metadata!.resourceVersion) > Number(created.metadata!.resourceVersion));
  const changed = await apply(deployment('web', { app: 'web' }, 'agent:2'));
  assert.equal(changed.metadata!.generation, 2);
  assert.equal(changed.metadata!.uid, created.metadata!.uid);
  assert.equal(api.requests.at(-1)!.contentType, 'application/apply-patch+yaml');
});

test('replace with a stale resourceVersion is 409 Conflict; the status subresource leaves generation alone', async () => {
  const apps = kc.makeApiClient(AppsV1Api);
  const cur = await apps.readNamespacedDeployment({ namespace: NS, name: 'web' });
  const stale = { ...cur, metadata: { ...cur.metadata, resourceVersion: '1' } };
  assert.equal(await code(apps.replaceNamespacedDeployment({ namespace: NS, name: 'web', body: stale })), 409);
  const st = await apps.replaceNamespacedDeploymentStatus({
    namespace: NS,
    name: 'web',
    body: { ...cur, status: { readyReplicas: 1, replicas: 1 } },
  });
  assert.equal(st.status!.readyReplicas, 1);
  assert.equal(st.metadata!.generation, cur.metadata!.generation);
});

test('list with equality- and set-based label selectors; a malformed selector is 400', async () => {
  await apply(deployment('api', { app: 'api', tier: 'back' }));
  const names = async (sel: string) =>
    (await objects.list('apps/v1', 'Deployment', NS, undefined, undefined, undefined, undefined, sel)).items
      .map((o) => o.metadata!.name)
      .sort();
  assert.deepEqual(await names('app=api'), ['api']);
  assert.deepEqual(await names('app in (api,web)'), ['api', 'web']);
  assert.deepEqual(await names('tier'), ['api']);
  assert.deepEqual(await names('!tier'), ['web']);
  assert.deepEqual(await names('app!=api'), ['web']);
  assert.equal(await code(names('app in (x')), 400);
});

test('watch streams ADDED, MODIFIED and DELETED for the selected objects; delete cascades to owned objects', async () => {
  const events: string[] = [];
  const ctl = await new Watch(kc).watch(
    `/apis/apps/v1/namespaces/${NS}/deployments`,
    { labelSelector: 'app=api' },
    (phase, obj) => events.push(`${phase} ${obj.metadata.name}`),
    () => {},
  );
  const owner = api.get('Deployment', NS, 'api')!;
  api.put({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'api-pod',
      namespace: NS,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid: owner.metadata.uid! }],
    },
    spec: {},
  });
  await apply(deployment('api', { app: 'api', tier: 'mid' }));
  await objects.delete({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: NS } });
  await until('three watch events', () => events.length >= 3 || undefined, 10_000, 20);
  ctl.abort();
  assert.deepEqual(events, ['ADDED api', 'MODIFIED api', 'DELETED api']);
  assert.equal(api.get('Pod', NS, 'api-pod'), undefined, 'the owned pod went with its owner');
  assert.equal(
    await code(objects.delete({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: NS } })),
    404,
  );
});

test('a wrong token is 401', async () => {
  const other = new KubeConfig();
  other.loadFromString(api.kubeconfig(NS).replace(api.token, 'wrong-token'));
  assert.equal(await code(other.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: NS })), 401);
});

test('list pages stay in name order across writes between them, within the namespace; remainingItemCount only without a selector', async () => {
  const svc = (name: string, namespace = NS) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: { order: 'yes' } },
    spec: { ports: [{ port: 80 }] },
  });
  for (const n of ['o-d', 'o-b', 'o-f']) api.put(svc(n));
  // Neighbours in key order ('-' before '/', '0' after it) that a list of NS must never show.
  for (const ns of [`${NS}-a`, `${NS}0`]) api.put(svc('o-a', ns));
  const page = (limit: number, token?: string, sel = 'order=yes') =>
    objects.list('v1', 'Service', NS, undefined, undefined, undefined, undefined, sel, limit, token);
  const first = await page(2);
  assert.deepEqual(
    first.items.map((o) => o.metadata!.name),
    ['o-b', 'o-d'],
  );
  assert.equal(first.metadata?.remainingItemCount, undefined);
  // Written between the pages: one before the cursor (not seen), one after it, one removed.
  api.put(svc('o-a'));
  api.put(svc('o-e'));
  api.remove('Service', NS, 'o-f');
  const second = await page(2, first.metadata!._continue);
  assert.deepEqual(
    second.items.map((o) => o.metadata!.name),
    ['o-e'],
  );
  assert.equal(second.metadata?._continue, undefined);
  // Without a selector the API server also says how many follow.
  const all = await objects.list('v1', 'Service', NS, undefined, undefined, undefined, undefined, undefined, 1);
  const names = all.items.map((o) => o.metadata!.name);
  assert.equal(names.length, 1);
  const total = (await objects.list('v1', 'Service', NS)).items.length;
  assert.equal(all.metadata?.remainingItemCount, total - 1);
  assert.ok((await objects.list('v1', 'Service', NS)).items.every((o) => o.metadata!.namespace === NS));
  for (const n of ['o-a', 'o-b', 'o-d', 'o-e']) api.remove('Service', NS, n);
});
