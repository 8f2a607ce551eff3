// The per-request families kept outside prom-client's label children (ops/request-metrics.ts):
// what a scrape shows must be what prom-client's own Counter and Histogram would show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { RequestMetrics } from '../src/ops/request-metrics.js';

const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

test('requests by route, method and status; durations in cumulative buckets whose le is inclusive', async () => {
  const registry = new Registry();
  const m = new RequestMetrics(registry);
  const r = '/api/v1/assistants/:deploymentId';
  m.observe(r, 'GET', 200, 0.005); // exactly on a bound: counted in le="0.005"
  m.observe(r, 'GET', 200, 0.0051);
  m.observe(r, 'GET', 404, 61); // above every bound: only in +Inf
  m.observe('unmatched', 'POST', 404, 0.2);
  const text = await registry.metrics();
  assert.equal(sample(text, `berth_http_requests_total{route="${r}",method="GET",status="200"}`), 2);
  assert.equal(sample(text, `berth_http_requests_total{route="${r}",method="GET",status="404"}`), 1);
  assert.equal(sample(text, `berth_http_requests_total{route="unmatched",method="POST",status="404"}`), 1);
  const bucket = (le: string) =>
    sample(text, `berth_http_request_duration_seconds_bucket{route="${r}",method="GET",le="${le}"}`);
  assert.equal(bucket('0.005'), 1);
  assert.equal(bucket('0.01'), 2);
  assert.equal(bucket('60'), 2);
  assert.equal(bucket('+Inf'), 3);
  assert.equal(sample(text, `berth_http_request_duration_seconds_count{route="${r}",method="GET"}`), 3);
  assert.ok(
    Math.abs(sample(text, `berth_http_request_duration_seconds_sum{route="${r}",method="GET"}`)! - 61.0101) < 1e-9,
  );
  assert.match(text, /# TYPE berth_http_request_duration_seconds histogram/);
  assert.match(text, /# TYPE berth_http_requests_total counter/);
  // A label value is escaped as the exposition format wants.
  m.observe('/a"b\\c', 'GET', 200, 0.001);
  assert.match(await registry.metrics(), /route="\/a\\"b\\\\c"/);
  registry.resetMetrics();
  assert.doesNotMatch(await registry.metrics(), /berth_http_requests_total\{/);
});
