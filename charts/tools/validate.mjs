// Reads the YAML stream of tools/render.go on stdin and checks every manifest against the
// Kubernetes OpenAPI schemas (kubernetes-models), plus what the chart promises an operator.
import { loadAll } from 'js-yaml';
import { createRequire } from 'node:module';

// The schemas are a test dependency of the server package, and npm installs them in its folder
// (packages/server/node_modules), where an import from charts/ does not look.
const require = createRequire(new URL('../../packages/server/package.json', import.meta.url));
const { Deployment } = require('kubernetes-models/apps/v1');
const { Service, ServiceAccount, Namespace } = require('kubernetes-models/v1');
const { Role, RoleBinding } = require('kubernetes-models/rbac.authorization.k8s.io/v1');
const { PodDisruptionBudget } = require('kubernetes-models/policy/v1');
const { Ingress } = require('kubernetes-models/networking.k8s.io/v1');
const { CronJob } = require('kubernetes-models/batch/v1');

const MODELS = { Deployment, Service, ServiceAccount, Namespace, Role, RoleBinding, PodDisruptionBudget, Ingress, CronJob };
let text = '';
for await (const chunk of process.stdin) text += chunk;
const docs = loadAll(text).filter(Boolean);
const fail = (msg) => { console.error(`chart: ${msg}`); process.exit(1); };
/** What both Prometheus Operator CRDs (no model in kubernetes-models) promise: http /metrics with the token. */
function checkScrape(d, ep) {
  if (d.apiVersion !== 'monitoring.coreos.com/v1') fail(`${d.kind}: wrong apiVersion`);
  if (ep?.path !== '/metrics' || ep?.port !== 'http') fail(`${d.kind}: does not scrape http /metrics`);
  const keys = d.kind === 'PodMonitor' ? ['METRICS_TOKEN', 'AGENT_METRICS_TOKEN'] : ['METRICS_TOKEN'];
  if (!keys.includes(ep?.bearerTokenSecret?.key) || !ep.bearerTokenSecret.name) fail(`${d.kind}: no ${keys.join(' or ')} bearer`);
}
function checkServiceMonitor(d) {
  checkScrape(d, d.spec?.endpoints?.[0]);
  if (d.spec.selector?.matchLabels?.['app.kubernetes.io/component'] !== 'control-plane') fail('ServiceMonitor: selects no control-plane Service');
}
/** The agents' PodMonitor: their http port's /metrics, the same token, only Berth's agent pods. */
function checkPodMonitor(d) {
  checkScrape(d, d.spec?.podMetricsEndpoints?.[0]);
  if (d.spec.selector?.matchLabels?.['app.kubernetes.io/managed-by'] !== 'berth') fail("PodMonitor: selects pods other than Berth's");
  const components = d.spec.selector?.matchExpressions?.find((e) => e.key === 'app.kubernetes.io/component');
  if (components?.operator !== 'In' || components.values.slice().sort().join() !== 'agent-host,worker') fail('PodMonitor: does not select both placements');
  if (!d.spec.namespaceSelector?.matchNames?.length) fail('PodMonitor: no workers namespace');
}
for (const d of docs) {
  if (d.kind === 'ServiceMonitor') { checkServiceMonitor(d); continue; }
  if (d.kind === 'PodMonitor') { checkPodMonitor(d); continue; }
  const Model = MODELS[d.kind];
  if (!Model) fail(`unexpected kind ${d.kind}`);
  try { new Model(d).validate(); } catch (err) { fail(`${d.kind}/${d.metadata?.name}: ${err.message}`); }
}
const kinds = docs.map((d) => d.kind).sort();
const podMonitor = docs.find((d) => d.kind === 'PodMonitor');
if (podMonitor) {
  const cpEnv = Object.fromEntries(docs.find((d) => d.kind === 'Deployment').spec.template.spec.containers[0].env.map((e) => [e.name, e.value]));
  if (podMonitor.spec.namespaceSelector.matchNames[0] !== cpEnv.KUBERNETES_NAMESPACE) fail('PodMonitor: not the namespace the agents run in');
  const cpSecret = docs.find((d) => d.kind === 'Deployment').spec.template.spec.containers[0].envFrom?.[0]?.secretRef?.name;
  if (podMonitor.spec.podMetricsEndpoints[0].bearerTokenSecret.name !== cpSecret) fail("PodMonitor: not the control plane's Secret");
}
const dep = docs.find((d) => d.kind === 'Deployment');
const env = Object.fromEntries(dep.spec.template.spec.containers[0].env.map((e) => [e.name, e.value]));
if (env.WORKER_BACKEND !== 'kubernetes' || !env.KUBERNETES_NAMESPACE || !env.AGENT_IMAGE) fail('the control plane is not configured for the Kubernetes backend');
if (dep.spec.template.spec.containers[0].env.some((e) => /SECRET|DATABASE_URL|API_KEY/.test(e.name))) fail('a secret setting is a plain env value');
if (dep.spec.template.spec.containers[0].readinessProbe?.httpGet?.path !== '/readyz') fail('the readiness probe does not use /readyz');
if (!dep.spec.template.spec.containers[0].envFrom?.[0]?.secretRef?.name) fail('secrets are not referenced');
const labels = dep.spec.template.metadata.labels;
if (labels['app.kubernetes.io/name'] !== 'berth' || labels['app.kubernetes.io/component'] !== 'control-plane') fail('pod labels do not match what the agents\' NetworkPolicy admits');
const role = docs.find((d) => d.kind === 'Role');
if (role.metadata.namespace !== env.KUBERNETES_NAMESPACE) fail('the Role is not in the workers namespace');
if (docs.some((d) => d.kind === 'ClusterRole' || d.kind === 'ClusterRoleBinding')) fail('cluster-wide RBAC');
// Least privilege: Secrets are never listed or watched, and read only by name.
for (const r of role.rules) {
  if (!r.resources.includes('secrets')) continue;
  if (r.verbs.some((v) => v === 'list' || v === 'watch' || v === '*')) fail('the Role can list every Secret');
  if (r.verbs.includes('get') && !r.resourceNames?.length) fail('the Role can read every Secret');
}
if (role.rules.some((r) => r.resources.includes('pods') && r.verbs.some((v) => v !== 'get' && v !== 'list' && v !== 'watch')))
  fail('the Role can create or change pods directly');
// The dedicated workers' kinds are listed and watched (watched-names.ts): a Role without watch on one
// keeps the passes listing the API server every 5 s, its relist retried every 30 s.
for (const [group, resource] of [['apps', 'deployments'], ['', 'services']]) {
  const verbs = role.rules.filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource)).flatMap((r) => r.verbs);
  if (!verbs.includes('list') || !verbs.includes('watch')) fail(`the Role cannot list and watch ${resource}`);
}
// Data claims: created, read back and deleted by the control plane, nothing more (no list, no patch).
const claimVerbs = role.rules.filter((r) => r.resources.includes('persistentvolumeclaims')).flatMap((r) => r.verbs);
if (claimVerbs.sort().join() !== 'create,delete,get') fail(`the Role's persistentvolumeclaims verbs are [${claimVerbs}], not create/get/delete`);
if ('KUBERNETES_STORAGE_CLASS' in env && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(env.KUBERNETES_STORAGE_CLASS ?? ''))
  fail('KUBERNETES_STORAGE_CLASS is set but not a StorageClass name');
const ns = docs.find((d) => d.kind === 'Namespace');
if (ns && ns.metadata.labels?.['pod-security.kubernetes.io/enforce'] !== 'restricted')
  fail('the workers Namespace does not enforce the restricted Pod Security Standard');
const ports = Object.fromEntries(dep.spec.template.spec.containers[0].ports.map((p) => [p.name, p.containerPort]));
if (!ports.gateway || String(ports.gateway) !== env.GATEWAY_PORT) fail('the model gateway has no listener of its own');
if (!env.MODEL_GATEWAY_URL?.endsWith(`:${docs.find((d) => d.kind === 'Service').spec.ports.find((p) => p.name === 'gateway')?.port}`))
  fail('agents are not sent to the gateway port');
for (const ing of docs.filter((d) => d.kind === 'Ingress'))
  for (const rule of ing.spec.rules)
    for (const path of rule.http.paths)
      if (path.backend.service.port.name !== 'http') fail('the Ingress routes to a port other than the public one');
if (!dep.spec.template.spec.containers[0].resources?.limits?.memory) fail('the control plane has no memory limit');
/** The restricted Pod Security Standard, as the API server's admission checks it. */
function checkRestricted(what, pod) {
  const ps = pod.securityContext ?? {};
  if (ps.runAsNonRoot !== true) fail(`${what}: runAsNonRoot is not set`);
  if (ps.seccompProfile?.type !== 'RuntimeDefault') fail(`${what}: no RuntimeDefault seccomp profile`);
  for (const c of pod.containers) {
    const cs = c.securityContext ?? {};
    if (cs.allowPrivilegeEscalation !== false) fail(`${what}: ${c.name} may escalate privileges`);
    if (!cs.capabilities?.drop?.includes('ALL')) fail(`${what}: ${c.name} keeps capabilities`);
    if (!c.resources?.limits?.memory) fail(`${what}: ${c.name} has no memory limit`);
  }
  if (pod.volumes?.some((v) => v.hostPath)) fail(`${what}: a hostPath volume`);
}
checkRestricted('the control plane', dep.spec.template.spec);
const cron = docs.find((d) => d.kind === 'CronJob');
if (cron) {
  const pod = cron.spec.jobTemplate.spec.template.spec;
  checkRestricted('the backup CronJob', pod);
  const c = pod.containers[0];
  if (!c.args?.join(' ').includes('admin backup --to')) fail('the backup CronJob does not run `berth admin backup --to`');
  const pass = c.env.find((e) => e.name === 'BACKUP_PASSPHRASE');
  if (pass?.value !== undefined || !pass?.valueFrom?.secretKeyRef?.name) fail('BACKUP_PASSPHRASE is not read from a Secret');
  if (c.env.some((e) => /SECRET|DATABASE_URL|API_KEY|PASSPHRASE/.test(e.name) && e.value !== undefined)) fail('the backup CronJob has a secret setting as a plain env value');
  const target = c.volumeMounts.find((m) => m.mountPath === '/backups');
  const vol = pod.volumes.find((v) => v.name === target?.name);
  if (!vol || vol.emptyDir) fail('the backup CronJob writes into no lasting volume');
  if (cron.spec.concurrencyPolicy !== 'Forbid') fail('two backups may run at once');
  if (pod.automountServiceAccountToken !== false) fail('the backup pod gets a Kubernetes API token');
}
console.log(`chart: ${docs.length} manifests valid (${kinds.join(', ')})`);
