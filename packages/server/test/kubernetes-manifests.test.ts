// The manifest builders are pure: same input, same objects. Each is checked against the
// Kubernetes OpenAPI schema and against a committed snapshot, and for the properties that matter
// to an operator: no credential in a pod spec, non-root, bounded resources, Berth's labels.
import { defaultSettings } from '@berth/contracts/settings';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dedicatedWorkerManifests } from '../src/workers/kubernetes/manifests/dedicated-worker.js';
import { agentHostManifests, agentHostSecret, agentHostDns } from '../src/workers/kubernetes/manifests/agent-host.js';
import { agentNetworkPolicy } from '../src/workers/kubernetes/manifests/network-policy.js';
import { metricsSecret } from '../src/workers/kubernetes/manifests/metrics-secret.js';
import type { ManifestContext } from '../src/workers/kubernetes/manifests/context.js';
import { pickHost } from '../src/workers/kubernetes/shared.js';
import type { WorkerSpec } from '../src/workers/port.js';
import { validateObject, wire } from './kubernetes/validate.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'kubernetes', 'snapshots');

const ctx: ManifestContext = {
  namespace: 'berth-workers',
  agentImage: 'berth-agent:1.0.0',
  controlPlaneNamespace: 'berth',
  controlPlaneLabels: { 'app.kubernetes.io/name': 'berth', 'app.kubernetes.io/component': 'control-plane' },
};
const BOT = '7200000001:AAsnapshotBotTokenNeverInAPodSpec_xyz';
const spec: WorkerSpec = {
  workerName: 'asst-01jd7r3n5q8m2x4v6b9c0z1y2w',
  deploymentId: '01JD7R3N5Q8M2X4V6B9C0Z1Y2W',
  framework: 'assistant-agent',
  channels: [{ type: 'telegram', botToken: BOT }],
  gatewayToken: 'gw_snapshot_gateway_token_0123456789abcdef',
  settings: defaultSettings(),
  model: {
    provider: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    modelId: 'gpt-4o-mini',
    apiKey: 'sk-snapshot-model-key-0123456789',
  },
};

/** Compares with the committed JSON; UPDATE_SNAPSHOTS=1 rewrites it. */
function snapshot(name: string, value: unknown) {
  const file = join(FIXTURES, `${name}.json`);
  const text = JSON.stringify(wire(value), null, 2) + '\n';
  if (process.env.UPDATE_SNAPSHOTS === '1') {
    mkdirSync(FIXTURES, { recursive: true });
    writeFileSync(file, text);
  }
  assert.equal(text, readFileSync(file, 'utf8'), `snapshot ${name} changed (UPDATE_SNAPSHOTS=1 to accept)`);
}

test('dedicated worker: Secret, Deployment and Service are valid Kubernetes objects and match the snapshot', () => {
  const m = dedicatedWorkerManifests(spec, ctx);
  for (const o of [m.secret, m.deployment, m.service]) validateObject(o);
  snapshot('dedicated-worker', m);
  assert.deepEqual(dedicatedWorkerManifests(spec, ctx), m, 'pure: same input, same output');
});

test('dedicated worker: credentials only in the Secret, pods read them by reference', () => {
  const m = dedicatedWorkerManifests(spec, ctx);
  const podSpec = JSON.stringify(m.deployment);
  for (const secret of [BOT, spec.gatewayToken, spec.model.apiKey!]) {
    assert.ok(!podSpec.includes(secret), 'no credential in the Deployment');
    assert.ok(!JSON.stringify(m.service).includes(secret));
    assert.ok(Object.values(m.secret.stringData!).includes(secret), 'the Secret holds it');
  }
  const env = m.deployment.spec!.template.spec!.containers[0]!.env!;
  for (const name of ['GATEWAY_TOKEN', 'TELEGRAM_BOT_TOKEN', 'MODEL_API_KEY']) {
    const e = env.find((x) => x.name === name)!;
    assert.equal(e.value, undefined, `${name} has no plain value`);
    assert.equal(e.valueFrom?.secretKeyRef?.name, spec.workerName);
  }
  // A changed credential changes the pod template, so the Deployment rolls.
  const rotated = dedicatedWorkerManifests(
    { ...spec, channels: [{ type: 'telegram', botToken: '7200000001:AArotatedToken_abcdefghijklmnopqrstu' }] },
    ctx,
  );
  assert.notEqual(
    rotated.deployment.spec!.template.metadata!.annotations!['berth.dev/secret-digest'],
    m.deployment.spec!.template.metadata!.annotations!['berth.dev/secret-digest'],
  );
});

test('dedicated worker: non-root, read-only root, no service account token, bounded memory, readiness on /health', () => {
  const pod = dedicatedWorkerManifests(spec, ctx).deployment.spec!.template.spec!;
  const c = pod.containers[0]!;
  assert.equal(pod.securityContext!.runAsNonRoot, true);
  assert.equal(pod.automountServiceAccountToken, false);
  assert.equal(c.securityContext!.readOnlyRootFilesystem, true);
  assert.equal(c.securityContext!.allowPrivilegeEscalation, false);
  assert.deepEqual(c.securityContext!.capabilities!.drop, ['ALL']);
  assert.ok(c.resources!.limits!.memory);
  assert.ok(c.resources!.requests!.cpu);
  assert.ok(c.resources!.limits!.cpu, 'agent pods have a CPU limit');
  assert.equal(c.readinessProbe!.httpGet!.path, '/health');
});

test('a worker without a model key (none configured) gets no MODEL_API_KEY reference to a missing key', () => {
  const m = dedicatedWorkerManifests({ ...spec, model: { ...spec.model, apiKey: undefined } }, ctx);
  validateObject(m.deployment);
  assert.equal(m.secret.stringData!['model-api-key'], undefined);
  assert.ok(!m.deployment.spec!.template.spec!.containers[0]!.env!.some((e) => e.name === 'MODEL_API_KEY'));
});

test('a dedicated worker with web search reads its search credential from the Secret, by reference', () => {
  const credential = 'bgw_0123456789abcdef0123456789abcdef_search-credential-value-0123456789';
  const m = dedicatedWorkerManifests(
    { ...spec, search: { url: 'http://cp.berth:8080/gateway/v1/search', credential } },
    ctx,
  );
  validateObject(m.deployment);
  assert.equal(m.secret.stringData!['search-credential'], credential);
  const env = m.deployment.spec!.template.spec!.containers[0]!.env!;
  assert.deepEqual(env.find((e) => e.name === 'SEARCH_GATEWAY_URL')?.value, 'http://cp.berth:8080/gateway/v1/search');
  assert.deepEqual(
    env.find((e) => e.name === 'SEARCH_GATEWAY_CREDENTIAL')?.valueFrom?.secretKeyRef?.key,
    'search-credential',
  );
  assert.ok(!JSON.stringify(m.deployment).includes(credential), 'never in the pod template');
});

test("a dedicated worker's MCP servers: in its Secret by reference (optional), and a changed list rolls no pod", () => {
  const header = 'Bearer mcp-header-value-never-in-a-pod-spec';
  const servers = [{ name: 'tickets', url: 'https://mcp.example.com/mcp', headers: { Authorization: header } }];
  const m = dedicatedWorkerManifests({ ...spec, mcpServers: servers }, ctx);
  validateObject(m.deployment);
  assert.deepEqual(JSON.parse(m.secret.stringData!['mcp-servers']!), servers);
  const env = m.deployment.spec!.template.spec!.containers[0]!.env!;
  assert.deepEqual(env.at(-1), {
    name: 'AGENT_MCP_SERVERS',
    valueFrom: { secretKeyRef: { name: spec.workerName, key: 'mcp-servers', optional: true } },
  });
  assert.ok(!JSON.stringify(m.deployment).includes(header), 'never in the pod template');
  // The running pod takes a new list live: the digest does not move with it (nor from none).
  const digest = (x: typeof m) => x.deployment.spec!.template.metadata!.annotations!['berth.dev/secret-digest'];
  const plain = dedicatedWorkerManifests(spec, ctx);
  assert.equal(digest(m), digest(plain));
  assert.equal(
    digest(dedicatedWorkerManifests({ ...spec, mcpServers: [{ ...servers[0]!, url: 'https://b.example/mcp' }] }, ctx)),
    digest(m),
  );
  // Without servers (or with an empty list): not a trace, the snapshot's pod spec and Secret.
  for (const none of [plain, dedicatedWorkerManifests({ ...spec, mcpServers: [] }, ctx)]) {
    assert.equal(none.secret.stringData!['mcp-servers'], undefined);
    assert.ok(!JSON.stringify(none.deployment).includes('AGENT_MCP_SERVERS'));
  }
});

test('agent hosts: StatefulSet, headless Service and admin Secret are valid and match the snapshot', () => {
  const m = agentHostManifests(ctx, 3);
  const secret = agentHostSecret(ctx, 'host-admin-token-for-the-snapshot-only');
  for (const o of [m.statefulSet, m.service, secret]) validateObject(o);
  snapshot('agent-host', { ...m, secret });
  assert.equal(m.statefulSet.spec!.replicas, 3);
  assert.equal(m.service.spec!.clusterIP, 'None');
  // The admin token is a file from the Secret, never an environment variable (not even by reference).
  const pod = m.statefulSet.spec!.template.spec!;
  const env = pod.containers[0]!.env!;
  assert.ok(!env.some((e) => e.name === 'ADMIN_TOKEN'), 'ADMIN_TOKEN is in the environment');
  const file = env.find((e) => e.name === 'ADMIN_TOKEN_FILE')!.value!;
  const mount = pod.containers[0]!.volumeMounts!.find((v) => file.startsWith(`${v.mountPath}/`))!;
  assert.equal(mount.readOnly, true);
  const vol = pod.volumes!.find((v) => v.name === mount.name)!;
  assert.equal(vol.secret!.secretName, 'berth-agent-host');
  assert.equal(vol.secret!.defaultMode, 0o400);
  assert.ok(pod.containers[0]!.resources!.limits!.cpu, 'agent hosts have a CPU limit');
  assert.ok(!JSON.stringify(m.statefulSet).includes('host-admin-token-for-the-snapshot-only'));
  assert.equal(agentHostDns(ctx, 2), 'berth-agent-host-2.berth-agent-host.berth-workers.svc');
});

test('network policy: agents accept only the control plane and reach no private range', () => {
  const p = agentNetworkPolicy(ctx);
  validateObject(p);
  snapshot('network-policy', p);
  const w = wire(p);
  assert.deepEqual(w.spec.policyTypes, ['Ingress', 'Egress']);
  assert.equal(w.spec.ingress.length, 1);
  assert.deepEqual(w.spec.ingress[0].from[0].podSelector.matchLabels, ctx.controlPlaneLabels);
  assert.equal(w.spec.ingress[0].from[0].namespaceSelector.matchLabels['kubernetes.io/metadata.name'], 'berth');
  const open = w.spec.egress.find((e: any) => e.to[0].ipBlock);
  for (const cidr of [
    '0.0.0.0/8',
    '10.0.0.0/8',
    '100.64.0.0/10',
    '169.254.0.0/16',
    '172.16.0.0/12',
    '192.0.0.0/24',
    '192.168.0.0/16',
    '198.18.0.0/15',
    '240.0.0.0/4',
  ])
    assert.ok(open.to[0].ipBlock.except.includes(cidr), cidr);
});

test('schema validation catches a broken object (the check can fail)', () => {
  const m = dedicatedWorkerManifests(spec, ctx);
  const broken = wire(m.deployment);
  broken.spec.replicas = 'one';
  assert.throws(() => validateObject(broken));
});

test('host placement: least loaded host with room, else a new host', () => {
  assert.equal(pickHost(new Map(), 0, 10), 0);
  assert.equal(
    pickHost(
      new Map([
        [0, 3],
        [1, 1],
      ]),
      2,
      10,
    ),
    1,
  );
  assert.equal(
    pickHost(
      new Map([
        [0, 10],
        [1, 10],
      ]),
      2,
      10,
    ),
    2,
  );
  assert.equal(pickHost(new Map([[0, 10]]), 2, 10), 1, 'an empty host counts');
  assert.equal(pickHost(new Map([[5, 1]]), 2, 10), 0, 'placements on hosts beyond the StatefulSet do not count');
});

test('a dedicated worker of a vision model with transcription is told so in its environment (DESIGN §7.3)', () => {
  const media = { ...spec, model: { ...spec.model, capabilities: ['vision'], transcriptionModel: 'whisper-1' } };
  const env = dedicatedWorkerManifests(media, ctx).deployment.spec!.template.spec!.containers[0]!.env!;
  const value = (name: string) => env.find((e) => e.name === name)?.value;
  assert.equal(value('MODEL_CAPABILITIES'), 'vision');
  assert.equal(value('MODEL_TRANSCRIPTION_MODEL'), 'whisper-1');
  const plain = dedicatedWorkerManifests(spec, ctx).deployment.spec!.template.spec!.containers[0]!.env!;
  assert.ok(!plain.some((e) => e.name === 'MODEL_CAPABILITIES' || e.name === 'MODEL_TRANSCRIPTION_MODEL'));
});

test('dedicated worker: /data on its own ReadWriteOnce claim, rolled out with Recreate (never two pods on it)', () => {
  const m = dedicatedWorkerManifests(spec, { ...ctx, storageClassName: 'fast-ssd' });
  validateObject(m.claim);
  assert.equal(m.claim.metadata!.name, `${spec.workerName}-data`);
  assert.deepEqual(m.claim.spec!.accessModes, ['ReadWriteOnce']);
  assert.equal(m.claim.spec!.resources!.requests!.storage, '1Gi');
  assert.equal(m.claim.spec!.storageClassName, 'fast-ssd');
  assert.equal(dedicatedWorkerManifests(spec, ctx).claim.spec!.storageClassName, undefined, 'unset: the default class');
  assert.equal(m.deployment.spec!.strategy!.type, 'Recreate');
  const pod = m.deployment.spec!.template.spec!;
  const mount = pod.containers[0]!.volumeMounts!.find((v) => v.mountPath === '/data')!;
  const vol = pod.volumes!.find((v) => v.name === mount.name)!;
  assert.equal(vol.persistentVolumeClaim?.claimName, m.claim.metadata!.name);
  assert.equal(vol.emptyDir, undefined);
});

test('agent hosts: each pod gets a data claim from volumeClaimTemplates, kept when scaled down', () => {
  const s = agentHostManifests({ ...ctx, storageClassName: 'fast-ssd' }, 2).statefulSet.spec!;
  const [tpl] = s.volumeClaimTemplates!;
  assert.equal(tpl!.metadata!.name, 'data');
  assert.deepEqual(tpl!.spec!.accessModes, ['ReadWriteOnce']);
  assert.equal(tpl!.spec!.resources!.requests!.storage, '4Gi');
  assert.equal(tpl!.spec!.storageClassName, 'fast-ssd');
  assert.deepEqual(s.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Delete', whenScaled: 'Retain' });
  assert.notEqual(s.updateStrategy?.type, 'OnDelete');
  const pod = s.template.spec!;
  assert.ok(pod.containers[0]!.volumeMounts!.some((v) => v.name === 'data' && v.mountPath === '/data'));
  assert.ok(!pod.volumes!.some((v) => v.name === 'data'), 'the template, not a pod volume, provides data');
});

test("the control plane's Role may create, get and delete claims, nothing more", () => {
  const rbac = readFileSync(
    join(dirname(fileURLToPath(import.meta.url)), '../../../charts/berth/templates/rbac.yaml'),
    'utf8',
  );
  const rules = [
    ...rbac.matchAll(/resources: \[([^\]]*)\]\s*\n(?:\s*resourceNames: \[[^\]]*\]\s*\n)?\s*verbs: \[([^\]]*)\]/g),
  ];
  const verbs = rules
    .filter((r) => r[1]!.includes('"persistentvolumeclaims"'))
    .flatMap((r) => r[2]!.split(',').map((v) => v.trim().replaceAll('"', '')));
  assert.deepEqual(verbs.sort(), ['create', 'delete', 'get']);
});

test("both placements' pods read METRICS_TOKEN from the berth-metrics Secret, never as a value", () => {
  const token = 'metrics-token-never-in-a-pod-spec-0123';
  const secret = metricsSecret(ctx, token);
  validateObject(secret);
  assert.equal(secret.metadata!.namespace, ctx.namespace);
  assert.deepEqual(secret.stringData, { 'metrics-token': token });
  const pods = [
    dedicatedWorkerManifests(spec, ctx).deployment.spec!.template.spec!,
    agentHostManifests(ctx, 1).statefulSet.spec!.template.spec!,
  ];
  for (const pod of pods) {
    const env = pod.containers[0]!.env!.find((x) => x.name === 'METRICS_TOKEN');
    assert.equal(env?.value, undefined, 'no plain value');
    // Optional: a pod that starts while no token is configured starts, without /metrics.
    assert.deepEqual(env?.valueFrom, { secretKeyRef: { name: 'berth-metrics', key: 'metrics-token', optional: true } });
    assert.ok(!JSON.stringify(pod).includes(token));
  }
});

test("network policy: Prometheus's namespace may reach the agent port when the operator names it, and only then", () => {
  const closed = agentNetworkPolicy(ctx);
  assert.equal(closed.spec!.ingress!.length, 1, 'only the control plane by default');
  const open = agentNetworkPolicy({ ...ctx, metricsScraperNamespace: 'monitoring' });
  validateObject(open);
  const scraper = open.spec!.ingress![1]!;
  assert.deepEqual(wire(scraper), {
    from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
    ports: [{ protocol: 'TCP', port: 8090 }],
  });
});
