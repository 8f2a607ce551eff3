// The shared placement: agent hosts as a StatefulSet (stable names, so the control plane can
// address each host and record which assistants it holds), a headless Service giving each pod a
// DNS name, and a Secret with the hosts' admin token. Assistants are added through each host's
// admin API, so their credentials never appear in any manifest.
import type { V1Secret, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { HOST_MALLOC_ENV } from '../../host-memory.js';
import { AGENT_PORT, resources, type ManifestContext } from './context.js';
import { labelsFor } from './labels.js';
import { SECRETS_DIR, agentPodSpec, dataClaimSpec } from './pod.js';

export const AGENT_HOST = 'berth-agent-host';
/** Each host's /data: a claim per pod (`data-berth-agent-host-<n>`) that outlives the pod. */
export const HOST_DATA_SIZE = '4Gi';

export interface AgentHostManifests {
  statefulSet: V1StatefulSet;
  service: V1Service;
}

export function agentHostSecret(ctx: ManifestContext, adminToken: string): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name: AGENT_HOST, namespace: ctx.namespace, labels: labelsFor('agent-host') },
    stringData: { 'admin-token': adminToken },
  };
}

export function agentHostManifests(ctx: ManifestContext, replicas: number): AgentHostManifests {
  const labels = labelsFor('agent-host');
  const metadata = { name: AGENT_HOST, namespace: ctx.namespace, labels };
  const selector = { 'app.kubernetes.io/component': 'agent-host', 'app.kubernetes.io/managed-by': 'berth' };
  return {
    statefulSet: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata,
      spec: {
        replicas,
        serviceName: AGENT_HOST,
        // Hosts are independent of each other: start and stop them all at once.
        podManagementPolicy: 'Parallel',
        // The default RollingUpdate of a StatefulSet stops a pod before its replacement starts, so a
        // host's claim is never mounted by two pods. Scaled down, a host's claim is kept for when it
        // comes back; removed with the StatefulSet (its assistants were purged one by one before).
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
        volumeClaimTemplates: [{ metadata: { name: 'data', labels }, spec: dataClaimSpec(ctx, HOST_DATA_SIZE) }],
        selector: { matchLabels: selector },
        template: {
          metadata: { labels },
          spec: agentPodSpec(
            ctx,
            {
              name: 'agent-host',
              args: ['host'],
              // A file from the Secret, not an environment variable: nothing in /proc/<pid>/environ.
              env: [
                { name: 'ADMIN_TOKEN_FILE', value: `${SECRETS_DIR}/admin-token` },
                ...Object.entries(HOST_MALLOC_ENV).map(([name, value]) => ({ name, value })),
              ],
              readinessProbe: { httpGet: { path: '/health', port: 'http' }, periodSeconds: 5 },
              livenessProbe: {
                httpGet: { path: '/health', port: 'http' },
                initialDelaySeconds: 10,
                periodSeconds: 20,
              },
              resources: resources.host,
            },
            {
              dataClaim: { template: true },
              terminationGracePeriodSeconds: 30,
              secretVolume: { secretName: AGENT_HOST, items: [{ key: 'admin-token', path: 'admin-token' }] },
            },
          ),
        },
      },
    },
    service: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata,
      spec: {
        clusterIP: 'None',
        selector,
        ports: [{ name: 'http', port: AGENT_PORT, targetPort: 'http', protocol: 'TCP' }],
      },
    },
  };
}

/** The DNS name of host `ordinal` inside the cluster. */
export function agentHostDns(ctx: Pick<ManifestContext, 'namespace'>, ordinal: number): string {
  return `${AGENT_HOST}-${ordinal}.${AGENT_HOST}.${ctx.namespace}.svc`;
}
