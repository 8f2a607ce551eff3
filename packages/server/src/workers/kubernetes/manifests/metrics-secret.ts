// The agents' METRICS_TOKEN (DESIGN §7.5): the control plane copies AGENT_METRICS_TOKEN, or else
// its own METRICS_TOKEN (from the Secret the chart gives it), into one Secret of the workers namespace, and every agent pod reads it by
// reference, so the Prometheus Operator's PodMonitor scrapes them with the token of that same
// chart Secret. Pods never carry the value; a pod starting before the Secret exists has no
// /metrics (optional reference) until its next start.
import type { V1EnvVar, V1Secret } from '@kubernetes/client-node';
import { BERTH, MANAGED_BY } from './labels.js';

export const METRICS_SECRET = 'berth-metrics';
const KEY = 'metrics-token';

export function metricsSecret(ctx: { namespace: string }, token: string): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: METRICS_SECRET,
      namespace: ctx.namespace,
      labels: { [MANAGED_BY]: BERTH, 'app.kubernetes.io/part-of': BERTH },
    },
    stringData: { [KEY]: token },
  };
}

export const metricsTokenEnv: V1EnvVar = {
  name: 'METRICS_TOKEN',
  valueFrom: { secretKeyRef: { name: METRICS_SECRET, key: KEY, optional: true } },
};
