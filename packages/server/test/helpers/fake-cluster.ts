// A Kubernetes cluster for end-to-end tests: FakeKubernetes speaks the API the official client
// calls, and its fake kubelet runs each pod as the real agent process. The control plane finds the
// cluster through KUBECONFIG, as it would a real one.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import type { KubernetesWorkersOptions } from '../../src/workers/kubernetes/backend.js';
import type { WorkerPlacementRepo } from '../../src/platform/store/worker-placements.js';
import { FakeKubelet, FakeKubernetes, spawnRunner } from '@berth/testkit';
import { startE2E, type E2E } from './e2e.js';
import type { Overrides } from '../../src/runtime.js';
import { stopAll } from './stop-all.js';
import { until } from './until.js';

export const AGENT_BIN = join(createRequire(import.meta.url).resolve('@berth/agent'), '../../bin/berth-agent.js');
export const KUBE_NS = 'berth-workers';

/** A Service of the labels' pods, as Berth's (or another's) in the namespace. */
export const service = (name: string, labels: Record<string, string>): KubernetesObject =>
  ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: KUBE_NS, labels },
    spec: { selector: labels, ports: [{ port: 8090 }] },
  }) as KubernetesObject;
/** A Deployment of no replicas (nothing runs), labelled. */
export const deployment = (name: string, labels: Record<string, string>): KubernetesObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: KUBE_NS, labels },
    spec: {
      replicas: 0,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'a', image: 'agent:1' }] } },
    },
  }) as KubernetesObject;

/**
 * A dedicated-placement backend's options over `kc`, in KUBE_NS, as a control plane makes them at
 * start; none of its workers is on a shared host.
 */
export const dedicatedOptions = (kc: KubeConfig): KubernetesWorkersOptions => ({
  kubeConfig: kc,
  namespace: KUBE_NS,
  agentImage: 'agent:1',
  controlPlaneNamespace: 'berth',
  controlPlaneLabels: { app: 'berth' },
  placement: 'dedicated',
  hostCapacity: 10,
  placements: { hostOf: async () => undefined, choiceOf: async () => undefined } as unknown as WorkerPlacementRepo,
  now: () => new Date(),
});

/** The API alone (no kubelet), with the official client's config and object API pointed at it. */
export interface FakeApi {
  api: FakeKubernetes;
  kc: KubeConfig;
  objects: KubernetesObjectApi;
}

export async function startFakeApi(): Promise<FakeApi> {
  const api = await new FakeKubernetes({ namespaces: [KUBE_NS] }).start();
  const kc = new KubeConfig();
  kc.loadFromString(api.kubeconfig(KUBE_NS));
  return { api, kc, objects: KubernetesObjectApi.makeApiClient(kc) };
}

/** The fake API server for a whole test file: `use` gets it before the file's tests; it stops after them. */
export function fakeApiForFile(use: (f: FakeApi) => void): void {
  let f: FakeApi | undefined;
  before(async () => {
    f = await startFakeApi();
    use(f);
  });
  after(() => f?.api.stop());
}

export interface FakeCluster {
  api: FakeKubernetes;
  kubelet: FakeKubelet;
}

/**
 * Starts the API and its kubelet and points KUBECONFIG at them. `podEnv`: added to every pod's
 * environment (a development setting no manifest carries, e.g. MCP_ALLOW_INSECURE).
 */
export async function startFakeCluster(podEnv: Record<string, string> = {}): Promise<FakeCluster> {
  const api = await new FakeKubernetes({ namespaces: [KUBE_NS] }).start();
  const kubelet = await new FakeKubelet(api, spawnRunner(AGENT_BIN, podEnv)).start();
  const dir = mkdtempSync(join(tmpdir(), 'berth-kube-'));
  writeFileSync(join(dir, 'config'), api.kubeconfig(KUBE_NS));
  process.env.KUBECONFIG = join(dir, 'config');
  return { api, kubelet };
}

export interface KubernetesE2E extends FakeCluster {
  e: E2E;
  /** Stops the control plane, then the cluster (its pods with it). */
  close(): Promise<void>;
}

/** A control plane on WORKER_BACKEND=kubernetes against a fresh fake cluster; `env` adds to (or
 *  overrides) the backend's settings, e.g. the placement; `overrides` the runtime's (a test's timings). */
export async function startKubernetesE2E(
  env: Record<string, string>,
  overrides: Omit<Overrides, 'kubernetesUrlFor'> = {},
  podEnv: Record<string, string> = {},
): Promise<KubernetesE2E> {
  const cluster = await startFakeCluster(podEnv);
  const e = await startE2E(
    {
      WORKER_BACKEND: 'kubernetes',
      KUBERNETES_NAMESPACE: KUBE_NS,
      AGENT_IMAGE: 'berth-agent:test',
      DEPLOY_TIMEOUT_SECONDS: '60',
      ...env,
    },
    { ...overrides, kubernetesUrlFor: cluster.kubelet.urlFor },
  ).catch(async (err: unknown) => {
    await stopKubernetesE2E(cluster);
    throw err;
  });
  return { ...cluster, e, close: () => stopKubernetesE2E({ ...cluster, e }) };
}

/**
 * Waits for a running pod that reads `envName` (the roll that gave a worker's pod a new setting),
 * kills it, and waits for its replacement: a restarted pod must come back with the setting.
 * `what` names the first pod in a timeout.
 */
export async function restartPodReading(k: FakeCluster, envName: string, what: string): Promise<void> {
  const reading = () =>
    k.api
      .all()
      .find(
        (o) =>
          o.kind === 'Pod' && k.kubelet.running.includes(o.metadata.name) && JSON.stringify(o).includes(`"${envName}"`),
      );
  const first = await until(what, reading, 60_000, 100);
  k.api.remove('Pod', KUBE_NS, first.metadata.name);
  await until(
    'its replacement',
    () => {
      const pod = reading();
      return pod && pod.metadata.uid !== first.metadata.uid ? pod : undefined;
    },
    60_000,
    100,
  );
}

/** For an `after` hook: safe when start-up failed part way. */
export async function stopKubernetesE2E(k: Partial<FakeCluster> & { e?: E2E }): Promise<void> {
  await stopAll([() => k.e?.close(), () => k.kubelet?.stop(), () => k.api?.stop()]);
}
