// The composition root: turns a Config into running parts. Tests use it with their own config.
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/env.js';
import { openStore, type Store } from './store/database.js';
import { DeploymentRepo } from './store/deployments.js';
import { UserRepo } from './store/users.js';
import { loadCatalog, type ModelCatalog } from './catalog/model-catalog.js';
import { createSecretBox, type SecretBox } from './crypto/secret-box.js';
import { resolveSecretsKey } from './crypto/secrets-key.js';
import { createLocalPayments } from './payments/local.js';
import { createStripePayments } from './payments/stripe.js';
import type { PaymentsPort } from './payments/port.js';
import type { WorkersPort } from './workers/port.js';
import { createUnavailableWorkers } from './workers/unavailable.js';
import type { Services } from './services/context.js';
import { deployDeployment } from './services/deploy-deployment.js';
import { buildApp } from './app.js';

export const REDACT = ['req.headers.authorization', 'req.headers["x-api-key"]', '*.botToken', '*.apiKey', '*.gatewayToken'];

export function createLogger(level: string, stream?: NodeJS.WritableStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } }, stream ?? process.stdout);
}

export interface Overrides {
  payments?: PaymentsPort;
  workers?: WorkersPort;
  logger?: Logger;
  now?: () => Date;
  catalog?: ModelCatalog;
  upstreamTimeoutMs?: number;
}

export interface Runtime {
  app: FastifyInstance;
  store: Store;
  services: Services;
  secrets: SecretBox;
  /** Resolves when background deploys started so far have settled (tests use it). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function selectPayments(config: Config): PaymentsPort {
  if (config.paymentProvider === 'local') return createLocalPayments(config.publicBaseUrl);
  return createStripePayments({ secretKey: config.stripe.secretKey!, prices: config.stripe.prices, apiBase: config.stripe.apiBase, publicBaseUrl: config.publicBaseUrl });
}

export function selectWorkers(config: Config): WorkersPort {
  return createUnavailableWorkers(config.workerBackend);
}

export async function createRuntime(config: Config, o: Overrides = {}): Promise<Runtime> {
  const logger = o.logger ?? createLogger(config.logLevel);
  const catalog = o.catalog ?? loadCatalog(config.modelCatalogPath);
  if (!catalog.provider(config.managedProvider)) {
    throw new Error(`MANAGED_PROVIDER: "${config.managedProvider}" is not a provider of the model catalog (${catalog.providers.map((p) => p.id).join(', ')})`);
  }
  const secrets = createSecretBox(resolveSecretsKey(config.secretsKey, config.dataDir));
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const inflight = new Set<Promise<void>>();
  const services: Services = {
    deployments: new DeploymentRepo(store.db),
    users: new UserRepo(store.db),
    catalog,
    secrets,
    payments: o.payments ?? selectPayments(config),
    workers: o.workers ?? selectWorkers(config),
    managedProvider: config.managedProvider,
    managedProviderApiKey: config.managedProviderApiKey,
    callbackAllowInsecure: config.callbackAllowInsecure,
    now: o.now ?? (() => new Date()),
    log: logger,
    startDeploy(d) {
      const p = deployDeployment(services, d).finally(() => inflight.delete(p));
      inflight.add(p);
    },
  };
  if (config.callbackAllowInsecure) logger.warn('CALLBACK_ALLOW_INSECURE=true: http and loopback callback URLs are accepted. Never use this in production.');
  const app = await buildApp({ services, logger, apiEnabled: config.apiEnabled, publicBaseUrl: config.publicBaseUrl, upstreamTimeoutMs: o.upstreamTimeoutMs });
  return {
    app,
    store,
    services,
    secrets,
    async idle() {
      while (inflight.size) await Promise.allSettled([...inflight]);
    },
    async close() {
      await app.close();
      while (inflight.size) await Promise.allSettled([...inflight]);
      await store.close();
    },
  };
}
