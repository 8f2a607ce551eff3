// A busy or starting local agent host must not fail the control plane's scrape: its families are
// waited for a moment, then the control plane's own go out alone (Prometheus gives up after 10 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Metrics } from '../src/ops/metrics.js';
import { OpsEvents } from '../src/platform/events.js';

const deps = (hostMetrics: () => Promise<string>) => ({
  deployments: { countByStatus: async () => ({}) },
  jobs: { backlog: async () => ({ queued: 0, oldestAgeSeconds: 0 }) },
  workers: { hostMetrics },
  events: new OpsEvents(),
});

test("a host that does not answer: the scrape has the control plane's families, without the host's", async () => {
  const m = new Metrics(
    deps(() => new Promise<string>(() => {})),
    200,
  );
  const t0 = Date.now();
  const text = await m.text();
  assert.ok(Date.now() - t0 < 5000, 'the scrape did not wait for the host');
  assert.match(text, /^berth_deployments\{status="active"\} 0$/m);
  assert.doesNotMatch(text, /berth_agent_host_rss_bytes/);
});

test("a host that answers in time: its families follow the control plane's", async () => {
  const m = new Metrics(
    deps(
      async () =>
        '# HELP berth_agent_host_rss_bytes x\n# TYPE berth_agent_host_rss_bytes gauge\nberth_agent_host_rss_bytes 1\n',
    ),
    200,
  );
  assert.match(await m.text(), /^berth_agent_host_rss_bytes 1$/m);
});
