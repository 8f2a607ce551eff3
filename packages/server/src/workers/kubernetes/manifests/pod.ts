// The pod both placements run: the agent image serving on AGENT_PORT, non-root with a read-only
// root file system and no service account token, writing only to /data and a small /tmp. What
// differs is the container's role (args, env, probes, resources), the size of /data and how long
// a stopping pod may take.
import type { V1Container, V1PersistentVolumeClaimSpec, V1PodSpec } from '@kubernetes/client-node';
import { AGENT_PORT, commonEnv, containerSecurity, podSecurity, type ManifestContext } from './context.js';

export type AgentContainer = Required<
  Pick<V1Container, 'name' | 'args' | 'env' | 'readinessProbe' | 'livenessProbe' | 'resources'>
>;

export interface AgentPodOptions {
  /**
   * Where /data lives: a claim outlives the pod, so a replaced pod keeps its users' memory,
   * conversations and pending reminders (0024, "Moving an assistant"). `template`: the
   * StatefulSet's volumeClaimTemplates name the claim; otherwise the claim of that name.
   */
  dataClaim: { template: true } | { claimName: string };
  terminationGracePeriodSeconds: number;
  /** A Secret mounted read-only at SECRETS_DIR (the host's admin token: a file, not an env value). */
  secretVolume?: { secretName: string; items: Array<{ key: string; path: string }> };
}

export const SECRETS_DIR = '/run/secrets/berth';

/** The pod spec around `container`; its env comes after the settings every agent gets (commonEnv). */
export function agentPodSpec(ctx: ManifestContext, container: AgentContainer, o: AgentPodOptions): V1PodSpec {
  return {
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: podSecurity,
    terminationGracePeriodSeconds: o.terminationGracePeriodSeconds,
    containers: [
      {
        name: container.name,
        image: ctx.agentImage,
        args: container.args,
        ports: [{ name: 'http', containerPort: AGENT_PORT }],
        env: [...commonEnv(ctx), ...container.env],
        readinessProbe: container.readinessProbe,
        livenessProbe: container.livenessProbe,
        resources: container.resources,
        securityContext: containerSecurity,
        volumeMounts: [
          { name: 'data', mountPath: '/data' },
          { name: 'tmp', mountPath: '/tmp' },
          ...(o.secretVolume ? [{ name: 'secrets', mountPath: SECRETS_DIR, readOnly: true }] : []),
        ],
      },
    ],
    volumes: [
      ...('claimName' in o.dataClaim
        ? [{ name: 'data', persistentVolumeClaim: { claimName: o.dataClaim.claimName } }]
        : []),
      { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } },
      ...(o.secretVolume
        ? [
            {
              name: 'secrets',
              secret: { secretName: o.secretVolume.secretName, items: o.secretVolume.items, defaultMode: 0o400 },
            },
          ]
        : []),
    ],
  };
}

/** The data claim's spec: one node mounts it read-write (ReadWriteOnce), so one pod at a time. */
export function dataClaimSpec(ctx: ManifestContext, size: string): V1PersistentVolumeClaimSpec {
  return {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: size } },
    ...(ctx.storageClassName ? { storageClassName: ctx.storageClassName } : {}),
  };
}
