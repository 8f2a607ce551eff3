// A dedicated Kubernetes worker keeps its owner's MCP servers across a restart (decision 0033): a
// PUT …/mcp-servers reaches the running pod and is kept in the worker's Secret (headers there
// only), which the agent reads back when its pod starts again. The pods are real agent processes
// (the fake kubelet), the server an SDK-built one on loopback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FakeKubernetes } from '@berth/testkit';
import { FakeMcpServer } from '@berth/testkit/mcp';
import { until as poll } from './helpers/until.js';
import { KUBE_NS as NS, restartPodReading, startKubernetesE2E, type KubernetesE2E } from './helpers/fake-cluster.js';
import { activeBot } from './helpers/e2e.js';

const BOT = '7200000021:AAkubeMcpDedicatedBotTokenForTests_xy';
const SECRET = 'Bearer kube-mcp-owner-secret-0123456789';
const INSECURE = { MCP_ALLOW_INSECURE: 'true' };
let k: KubernetesE2E;
let api: FakeKubernetes;
let id: string;
const mcp = new FakeMcpServer();

before(async () => {
  await mcp.start();
  k = await startKubernetesE2E({ KUBERNETES_PLACEMENT: 'dedicated', ...INSECURE }, {}, INSECURE);
  api = k.api;
  id = await activeBot(k.e, BOT, {}, 60_000);
});
after(async () => {
  await k?.close();
  await mcp.stop();
});

const until = <T>(what: string, fn: () => Promise<T | undefined> | T | undefined) => poll(what, fn, 60_000, 100);
const worker = () => `asst-${id.toLowerCase()}`;

test('a restarted dedicated pod comes back with its MCP servers; their headers are only in its Secret', async () => {
  const put = await k.e.api('PUT', `/api/v1/assistants/${id}/mcp-servers/tickets`, {
    url: mcp.url,
    headers: { Authorization: SECRET },
  });
  assert.equal(put.status, 200, put.text);

  const kept = api.get('Secret', NS, worker())!.data!['mcp-servers']!;
  assert.deepEqual(JSON.parse(Buffer.from(kept, 'base64').toString('utf8')), [
    { name: 'tickets', url: mcp.url, headers: { Authorization: SECRET } },
  ]);
  // Deployed without servers, the pod rolls once to read the key; then it dies.
  // Its container reads the MCP servers from the Secret.
  await restartPodReading(k, 'AGENT_MCP_SERVERS', 'a pod that reads its servers');
  const view = await until('the servers connected in the new pod', async () => {
    const res = await k.e.api('GET', `/api/v1/assistants/${id}/mcp-servers`);
    return res.json.data?.[0]?.status === 'connected' ? res.json.data[0] : undefined;
  });
  assert.ok(
    view.tools.some((t: { name: string }) => t.name === 'echo'),
    JSON.stringify(view),
  );
  for (const o of api.all().filter((x) => x.kind !== 'Secret'))
    assert.ok(!JSON.stringify(o).includes('kube-mcp-owner-secret'), `${o.kind}/${o.metadata.name} carries the header`);
});
