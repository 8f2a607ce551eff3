// The agents' metrics token reaches the workers' namespace when the control plane starts, not only
// with the first worker it creates: a restart whose workers all still run (nothing to create)
// applies a new METRICS_TOKEN, and one started without it removes the Secret (0025, "Metrics").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { type E2E, startE2E } from './helpers/e2e.js';
import { KUBE_NS, startFakeCluster, stopKubernetesE2E } from './helpers/fake-cluster.js';

test('a start with no worker to create applies METRICS_TOKEN to the agents, and a start without it removes it', async () => {
  const cluster = await startFakeCluster();
  let e: E2E | undefined;
  try {
    const env = { WORKER_BACKEND: 'kubernetes', KUBERNETES_NAMESPACE: KUBE_NS, AGENT_IMAGE: 'berth-agent:test' };
    const start = async (extra: Record<string, string>) => {
      await e?.close();
      e = await startE2E({ ...env, ...extra }, { kubernetesUrlFor: cluster.kubelet.urlFor });
      await e.runtime.idle();
    };
    await start({ METRICS_TOKEN: 'kube-metrics-token-0123456789abcdef' });
    assert.ok(
      cluster.api.get('Secret', KUBE_NS, 'berth-metrics'),
      'the start-up pass put the token in the workers namespace',
    );
    await start({});
    assert.equal(cluster.api.get('Secret', KUBE_NS, 'berth-metrics'), undefined, 'without a token the Secret goes');
  } finally {
    await e?.close();
    await stopKubernetesE2E(cluster);
  }
});

test("with AGENT_METRICS_TOKEN the agent pods hold their own key, which cannot read the control plane's /metrics", async () => {
  const cluster = await startFakeCluster();
  let e: E2E | undefined;
  const own = 'control-plane-metrics-0123456789abcdef';
  const agents = 'agents-only-scrape-key-0123456789abcd';
  try {
    e = await startE2E(
      {
        WORKER_BACKEND: 'kubernetes',
        KUBERNETES_NAMESPACE: KUBE_NS,
        AGENT_IMAGE: 'berth-agent:test',
        METRICS_TOKEN: own,
        AGENT_METRICS_TOKEN: agents,
      },
      { kubernetesUrlFor: cluster.kubelet.urlFor },
    );
    await e.runtime.idle();
    const secret = cluster.api.get('Secret', KUBE_NS, 'berth-metrics') as { data?: Record<string, string> };
    const held = Buffer.from(secret.data?.['metrics-token'] ?? '', 'base64').toString();
    assert.equal(held, agents, "the workers namespace holds the agents' key");
    assert.ok(
      !JSON.stringify(cluster.api.all()).includes(own),
      "no object in the cluster holds the control plane's key",
    );
    const scrape = (token: string) => request(`${e!.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    const refused = await scrape(agents);
    assert.equal(refused.statusCode, 401);
    await refused.body.dump();
    const served = await scrape(own);
    assert.equal(served.statusCode, 200);
    await served.body.dump();
  } finally {
    await e?.close();
    await stopKubernetesE2E(cluster);
  }
});
