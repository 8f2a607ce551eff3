// The operations variables of DESIGN §7.5, read by the one env module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/platform/config/env.js';

test('METRICS_TOKEN, ALERT_WEBHOOK_URL/FORMAT, ALERT_LOW_CREDIT_USD and BACKUP_PASSPHRASE are read and checked', () => {
  const c = loadConfig({
    METRICS_TOKEN: 'a-metrics-token-of-24-chars',
    ALERT_WEBHOOK_URL: 'https://hooks.example.com/services/T/B/x',
    ALERT_WEBHOOK_FORMAT: 'standard',
    ALERT_LOW_CREDIT_USD: '5',
    BACKUP_PASSPHRASE: ' keep spaces ',
  });
  assert.equal(c.metricsToken, 'a-metrics-token-of-24-chars');
  assert.deepEqual(c.alerts, {
    webhookUrl: 'https://hooks.example.com/services/T/B/x',
    format: 'standard',
    lowCreditUsd: 5,
  });
  assert.equal(c.backupPassphrase, ' keep spaces ');
  const none = loadConfig({});
  assert.equal(none.metricsToken, undefined);
  assert.deepEqual(none.alerts, { webhookUrl: undefined, format: 'slack', lowCreditUsd: undefined });
  for (const [name, value, why] of [
    ['METRICS_TOKEN', 'short', /at least 16/],
    ['AGENT_METRICS_TOKEN', 'has a space in it, see', /without spaces/],
    ['ALERT_WEBHOOK_FORMAT', 'teams', /slack, standard/],
    ['ALERT_WEBHOOK_URL', 'ftp://x', /http/],
    ['ALERT_LOW_CREDIT_USD', 'lots', /./],
    ['ALERT_LOW_CREDIT_USD', '-1', /./],
  ] as const) {
    assert.throws(
      () => loadConfig({ [name]: value }),
      (err: Error) => err instanceof ConfigError && err.message.startsWith(`${name}:`) && why.test(err.message),
    );
  }
});

test("AGENT_METRICS_TOKEN is the agents' own key: read, and refused when it is METRICS_TOKEN itself", () => {
  const c = loadConfig({
    METRICS_TOKEN: 'a-metrics-token-of-24-chars',
    AGENT_METRICS_TOKEN: 'agents-scrape-key-0123456789',
  });
  assert.equal(c.agentMetricsToken, 'agents-scrape-key-0123456789');
  assert.equal(loadConfig({}).agentMetricsToken, undefined);
  assert.throws(
    () =>
      loadConfig({ METRICS_TOKEN: 'a-metrics-token-of-24-chars', AGENT_METRICS_TOKEN: 'a-metrics-token-of-24-chars' }),
    (err: Error) =>
      err instanceof ConfigError && /^AGENT_METRICS_TOKEN: must differ from METRICS_TOKEN/.test(err.message),
  );
});
