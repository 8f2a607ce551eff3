// The Kubernetes backend's operator variables: defaults, and a clear error naming the variable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/platform/config/env.js';

test('kubernetes settings default to the shared placement in berth-workers', () => {
  const c = loadConfig({}, '/tmp');
  assert.deepEqual(c.kubernetes, {
    namespace: 'berth-workers',
    placement: 'shared',
    agentImage: 'berth-agent:latest',
    hostCapacity: 500,
    controlPlaneNamespace: 'berth-workers',
    storageClassName: undefined,
    metricsScraperNamespace: undefined,
  });
  const d = loadConfig(
    {
      KUBERNETES_NAMESPACE: 'agents',
      KUBERNETES_PLACEMENT: 'dedicated',
      AGENT_IMAGE: 'reg.example/berth-agent:1.2',
      KUBERNETES_HOST_CAPACITY: '50',
      KUBERNETES_CONTROL_PLANE_NAMESPACE: 'berth',
      KUBERNETES_STORAGE_CLASS: 'fast-ssd',
      KUBERNETES_METRICS_NAMESPACE: 'monitoring',
    },
    '/tmp',
  );
  assert.deepEqual(d.kubernetes, {
    namespace: 'agents',
    placement: 'dedicated',
    agentImage: 'reg.example/berth-agent:1.2',
    hostCapacity: 50,
    controlPlaneNamespace: 'berth',
    storageClassName: 'fast-ssd',
    metricsScraperNamespace: 'monitoring',
  });
});

test('bad kubernetes settings are refused, naming the variable', () => {
  for (const [name, value] of [
    ['KUBERNETES_PLACEMENT', 'everywhere'],
    ['KUBERNETES_NAMESPACE', 'Bad_NS'],
    ['KUBERNETES_HOST_CAPACITY', '0'],
    ['KUBERNETES_HOST_CAPACITY', '1.5'],
    ['KUBERNETES_CONTROL_PLANE_NAMESPACE', '-x'],
    ['KUBERNETES_STORAGE_CLASS', 'Fast SSD'],
    ['KUBERNETES_METRICS_NAMESPACE', 'Monitoring!'],
  ] as const) {
    assert.throws(
      () => loadConfig({ [name]: value }, '/tmp'),
      (err: unknown) => err instanceof ConfigError && err.variable === name,
      `${name}=${value}`,
    );
  }
});
