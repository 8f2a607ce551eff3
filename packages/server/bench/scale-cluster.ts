// bench:scale's cluster: a FakeKubernetes (the real API over HTTP) that already runs the workers of
// every deployment in a grown store, as after a control-plane restart with the cluster intact.
// The dedicated placement's layout (dedicated.ts): per assistant a Deployment and a Service
// labelled with its worker name, which is what the backend lists. Stored in bulk (addMany, not
// 200,000 API calls), and their specs shared: one real manifest's (dedicatedWorkerManifests), so a
// list page is as large as a real one while the fake holds 100,000 of each cheaply. Secrets and
// data claims are not stored (never listed; a pass reads them only to act on a worker).
// Reports on fd 3 the kubeconfig file that points the official client at it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeKubernetes, type KubeObject } from '@berth/testkit';
import { openStore } from '@berth/server';
import { dedicatedWorkerManifests } from '../src/workers/kubernetes/manifests/dedicated-worker.js';
import { WORKER } from '../src/workers/kubernetes/manifests/labels.js';
import { ready } from './processes.js';

const [dataDir, databaseUrl, namespace] = [process.argv[2]!, process.argv[3] || undefined, process.argv[4]!];
const store = await openStore({ databaseUrl, dataDir });
const rows = await store.db.selectFrom('deployments').select('worker_name').where('desired', '=', 'running').execute();
await store.close();

const template = dedicatedWorkerManifests(
  {
    workerName: 'asst-00000000-0000-0000-0000-000000000000',
    deploymentId: '00000000-0000-0000-0000-000000000000',
    framework: 'berth-agent',
    channels: [{ type: 'telegram', botToken: '7000000000:AAbenchmarkBotTokenNotUsedForAnything_x' }],
    model: { provider: 'openai', baseUrl: 'https://models.invalid/v1', modelId: 'gpt-4o-mini', apiKey: 'sk-bench' },
    gatewayToken: 'bench-gateway-token',
    settings: {} as never,
  },
  {
    namespace,
    agentImage: 'berth-agent:bench',
    controlPlaneNamespace: namespace,
    controlPlaneLabels: { 'app.kubernetes.io/name': 'berth', 'app.kubernetes.io/component': 'control-plane' },
  },
);
const api = await new FakeKubernetes({ namespaces: [namespace] }).start();
function* objects(): Generator<KubeObject> {
  for (const { worker_name: name } of rows) {
    for (const m of [template.deployment, template.service]) {
      yield {
        apiVersion: m.apiVersion!,
        kind: m.kind!,
        metadata: { name, namespace, labels: { ...m.metadata!.labels, [WORKER]: name } },
        spec: m.spec,
        status: m.kind === 'Deployment' ? DEPLOYMENT_STATUS : {},
      };
    }
  }
}
const DEPLOYMENT_STATUS = {
  observedGeneration: 1,
  replicas: 1,
  updatedReplicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
};
api.addMany(objects());
const dir = mkdtempSync(join(tmpdir(), 'berth-scale-kube-'));
writeFileSync(join(dir, 'config'), api.kubeconfig(namespace));
process.on(
  'SIGINT',
  () =>
    void api.stop().then(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }),
);
ready(JSON.stringify({ kubeconfig: join(dir, 'config'), workers: rows.length }));
