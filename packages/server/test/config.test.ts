import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../src/platform/config/env.js';

test('defaults are the embedded setup of the README', () => {
  const c = loadConfig({}, '/srv/berth');
  assert.equal(c.port, 8080);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.publicBaseUrl, 'http://127.0.0.1:8080');
  assert.equal(c.dataDir, '/srv/berth/data');
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.apiEnabled, true);
  assert.equal(c.paymentProvider, 'local');
  assert.equal(c.workerBackend, 'local');
  assert.equal(c.managedProvider, 'openrouter');
  assert.equal(c.callbackAllowInsecure, false);
  assert.equal(c.logLevel, 'info');
});

test('a bad value names its variable', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ ASSISTANTS_API_V1_ENABLED: 'maybe' }, 'ASSISTANTS_API_V1_ENABLED'],
    [{ SECRETS_KEY: 'c2hvcnQ=' }, 'SECRETS_KEY'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://localhost/berth' }, 'SECRETS_KEY'],
    [{ PAYMENT_PROVIDER: 'paypal' }, 'PAYMENT_PROVIDER'],
    [{ PAYMENT_PROVIDER: 'stripe' }, 'STRIPE_SECRET_KEY'],
    [{ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' }, 'STRIPE_WEBHOOK_SECRET'],
    [{ WORKER_BACKEND: 'docker' }, 'WORKER_BACKEND'],
    [{ PUBLIC_BASE_URL: 'berth.example.com' }, 'PUBLIC_BASE_URL'],
    [{ TELEGRAM_API_ROOT: 'nope' }, 'TELEGRAM_API_ROOT'],
    [{ CALLBACK_ALLOW_INSECURE: 'yes please' }, 'CALLBACK_ALLOW_INSECURE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
  ];
  for (const [env, variable] of cases) {
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && err.variable === variable && err.message.startsWith(variable),
      JSON.stringify(env),
    );
  }
});

test('values are read and normalised', () => {
  const key = Buffer.alloc(32, 1).toString('base64');
  const c = loadConfig({
    PORT: '9000',
    HOST: '0.0.0.0',
    PUBLIC_BASE_URL: 'https://berth.example.com/',
    DATABASE_URL: 'postgres://u@db/berth',
    SECRETS_KEY: key,
    ASSISTANTS_API_V1_ENABLED: 'false',
    STRIPE_PRICE_MANAGED: 'price_1',
  });
  assert.equal(c.publicBaseUrl, 'https://berth.example.com');
  assert.equal(c.apiEnabled, false);
  assert.equal(c.secretsKey?.length, 32);
  assert.deepEqual(c.stripe.prices, { byok: undefined, managed: 'price_1', unlimited: undefined });
});
