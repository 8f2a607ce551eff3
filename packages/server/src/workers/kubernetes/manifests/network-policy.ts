// Agent pods accept connections only from the control plane (and Prometheus's namespace if named), and reach only DNS, the control
// plane (the model gateway) and addresses outside private ranges (Telegram, model providers):
// never another assistant, the cluster's internal services, or a cloud metadata endpoint.
import type { V1NetworkPolicy } from '@kubernetes/client-node';
import { AGENT_PORT, type ManifestContext } from './context.js';
import { BERTH, COMPONENT, MANAGED_BY } from './labels.js';

export const AGENT_POLICY = 'berth-agents';

/** Private, link-local, shared, "this network", IETF protocol, benchmarking and reserved ranges (RFC 6890). */
export const PRIVATE = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '240.0.0.0/4',
];

export function agentNetworkPolicy(ctx: ManifestContext): V1NetworkPolicy {
  const controlPlane = {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ctx.controlPlaneNamespace } },
    podSelector: { matchLabels: ctx.controlPlaneLabels },
  };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: AGENT_POLICY,
      namespace: ctx.namespace,
      labels: { [MANAGED_BY]: BERTH, 'app.kubernetes.io/part-of': BERTH },
    },
    spec: {
      podSelector: {
        matchLabels: { [MANAGED_BY]: BERTH },
        matchExpressions: [{ key: COMPONENT, operator: 'In', values: ['worker', 'agent-host'] }],
      },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        { _from: [controlPlane], ports: [{ protocol: 'TCP', port: AGENT_PORT }] },
        // Prometheus, when the operator names its namespace: the agent port only, where /metrics
        // (and everything else) still asks for its own token.
        ...(ctx.metricsScraperNamespace
          ? [
              {
                _from: [
                  {
                    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ctx.metricsScraperNamespace } },
                  },
                ],
                ports: [{ protocol: 'TCP', port: AGENT_PORT }],
              },
            ]
          : []),
      ],
      egress: [
        {
          to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ],
        },
        { to: [controlPlane] },
        {
          to: [{ ipBlock: { cidr: '0.0.0.0/0', except: PRIVATE } }],
          ports: [
            { protocol: 'TCP', port: 443 },
            { protocol: 'TCP', port: 80 },
          ],
        },
      ],
    },
  };
}
