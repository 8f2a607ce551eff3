// One assistant on its own: a Secret with its credentials, a Deployment running the agent in
// single-agent mode that reads them by reference, and a Service in front of it.
import { createHash } from 'node:crypto';
import type { V1Deployment, V1PersistentVolumeClaim, V1Secret, V1Service } from '@kubernetes/client-node';
import { mountToEnv, type MountEnvVar } from '@berth/contracts/worker';
import { agentHostMount } from '../../agent-host-mount.js';
import type { WorkerSpec } from '../../port.js';
import { AGENT_PORT, resources, type ManifestContext } from './context.js';
import { labelsFor } from './labels.js';
import { agentPodSpec, dataClaimSpec } from './pod.js';

export const WORKER_DATA_SIZE = '1Gi';
/** The claim holding a dedicated worker's /data: kept across stop and redeploy, deleted on delete. */
export const dataClaimName = (worker: string) => `${worker}-data`;

export interface DedicatedWorkerManifests {
  secret: V1Secret;
  claim: V1PersistentVolumeClaim;
  deployment: V1Deployment;
  service: V1Service;
}

/** One variable as the container lists it: a value, or a reference to a key of the worker's Secret. */
export const containerEnv = (worker: string, v: MountEnvVar) =>
  'secretKey' in v
    ? {
        name: v.name,
        valueFrom: { secretKeyRef: { name: worker, key: v.secretKey, ...(v.optional ? { optional: true } : {}) } },
      }
    : v;

/**
 * Keys a running pod takes live (its next start reads them): a change of them does not roll it.
 * The last two are written after the digest (below) and only when the assistant has any.
 */
const LIVE_KEYS = ['settings', 'mcp-servers', 'channels'];

export function dedicatedWorkerManifests(spec: WorkerSpec, ctx: ManifestContext): DedicatedWorkerManifests {
  const name = spec.workerName;
  const labels = labelsFor('worker', name);
  const metadata = { name, namespace: ctx.namespace, labels };
  // The spec's mount as the pod's environment (@berth/contracts/worker mount-env.ts, which the
  // agent reads back): credentials in the Secret, referenced by key.
  // The Bot API root is the pod's TELEGRAM_API_ROOT (context.ts), not the mount's.
  const vars = mountToEnv(agentHostMount(spec, undefined, ctx.telegramWebhook));
  const stringData: Record<string, string> = {};
  for (const v of vars) if ('secretKey' in v && !LIVE_KEYS.includes(v.secretKey)) stringData[v.secretKey] = v.value;
  // The whole settings document, last (the digest of an unchanged Secret stays the same); a live
  // change rewrites this key (dedicated.ts) without a roll.
  stringData.settings = JSON.stringify(spec.settings);
  // Pods read the Secret only when they start: a digest of it in the pod template makes a
  // changed credential roll the Deployment. A digest, never the values.
  const digest = createHash('sha256').update(JSON.stringify(stringData)).digest('hex');
  // The MCP servers and the channels beside Telegram after the digest: a PUT …/mcp-servers or
  // …/channels gives them to the running pod and rewrites the key for its next start (dedicated.ts),
  // so a later create of the same list must not roll the pod; and an assistant without any keeps
  // the digest it always had.
  for (const v of vars)
    if ('secretKey' in v && LIVE_KEYS.slice(1).includes(v.secretKey)) stringData[v.secretKey] = v.value;
  return {
    secret: { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', stringData },
    claim: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { ...metadata, name: dataClaimName(name) },
      spec: dataClaimSpec(ctx, WORKER_DATA_SIZE),
    },
    deployment: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata,
      spec: {
        replicas: 1,
        // One poller per bot token, and one pod on the ReadWriteOnce data claim: never two pods of
        // the same assistant at once (a RollingUpdate would start the new pod beside the old one).
        strategy: { type: 'Recreate' },
        selector: { matchLabels: { 'app.kubernetes.io/component': 'worker', 'berth.dev/worker': name } },
        template: {
          metadata: {
            labels,
            annotations: { 'berth.dev/secret-digest': digest, 'berth.dev/deployment-id': spec.deploymentId },
          },
          spec: agentPodSpec(
            ctx,
            {
              name: 'agent',
              args: ['serve'],
              env: [{ name: 'AGENT_NAME', value: name }, ...vars.map((v) => containerEnv(name, v))],
              // Ready once Telegram accepted the token: the same health the local backend reads.
              readinessProbe: { httpGet: { path: '/health', port: 'http' }, periodSeconds: 5, failureThreshold: 2 },
              // A rejected token is not cured by a restart: liveness only checks the process answers.
              livenessProbe: { tcpSocket: { port: 'http' }, initialDelaySeconds: 10, periodSeconds: 20 },
              resources: resources.worker,
            },
            { dataClaim: { claimName: dataClaimName(name) }, terminationGracePeriodSeconds: 15 },
          ),
        },
      },
    },
    service: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata,
      spec: {
        type: 'ClusterIP',
        // The control plane reads a starting pod's /health through the Service to learn why it is
        // not ready (e.g. Telegram rejected the token); it sends chat only once the worker is active.
        publishNotReadyAddresses: true,
        selector: { 'app.kubernetes.io/component': 'worker', 'berth.dev/worker': name },
        ports: [{ name: 'http', port: AGENT_PORT, targetPort: 'http', protocol: 'TCP' }],
      },
    },
  };
}
