// The composition root: turns a Config into running parts. Tests use it with their own config.
import { runChannelUpdateJob } from './ingress/deliver-update-job.js';
import { telegramWebhookSecret } from './ingress/signatures.js';
import type { TelegramWebhookFor } from './workers/agent-host-mount.js';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Dispatcher } from 'undici';
import { createPublicOnlyAgent } from '@berth/contracts/net';
import type { Config } from './platform/config/env.js';
import { openStore, type Store } from './platform/store/database.js';
import { checkManagedPricing, loadCatalog, type ModelCatalog } from './catalog/model-catalog.js';
import { ChatSlots } from './chat/chat-slots.js';
import { SettleQueue } from './billing/settle-queue.js';
import { UsageJournal } from './billing/usage-journal.js';
import { createGatewayCredentials } from './billing/gateway-credential.js';
import { GATEWAY_PATH } from './billing/routes/gateway.js';
import { selectSearchProvider } from './billing/gateway/search/select.js';
import { createSecretBox, type SecretBox } from './platform/crypto/secret-box.js';
import { resolveSecretsKey } from './platform/crypto/secrets-key.js';
import { createLocalPayments } from './payments/local/adapter.js';
import { smtpMailer } from './accounts/mailer.js';
import { createStripePayments } from './payments/stripe/adapter.js';
import type { PaymentsPort } from './payments/port.js';
import type { WorkersPort } from './workers/port.js';
import type { UrlFor } from './workers/kubernetes/dedicated.js';
import { LocalAgentHost } from './workers/local-agent-host.js';
import { JobRunner, type RunnerOptions } from './platform/jobs/runner.js';
import { TtlCache } from './platform/cache/ttl-cache.js';
import { UNCAPPED_TTL_MS, UncappedPeriods } from './billing/uncapped-periods.js';
import type { Services } from './services.js';
import { runDeployJob } from './deployments/deploy-deployment.js';
import { runCallbackJob } from './callbacks/deliver-callback-job.js';
import { runCancelSubscriptionJob, runExpireCheckoutJob } from './payments/cancel-subscription-job.js';
import { Reconciler } from './reconciler/reconciler.js';
import { HealthWatch } from './deployments/health-watch.js';
import { StartUpProgress, type ReadinessState } from './ops/readiness.js';
import { backfillBotTokenHashes } from './settings/bot-token-owner.js';
import { runStopJob } from './payments/stop-for-cancellation-job.js';
import { buildApp } from './app.js';
import { Compilations } from './platform/http/lazy-compile.js';
import { startGatewayListener, type GatewayListener } from './platform/http/gateway-listener.js';
import { builtDashboardDir } from './platform/http/dashboard.js';
import { OpsEvents } from './platform/events.js';
import type { Metrics } from './ops/metrics.js';
import { type AlertTuning, runAlertJob, watchForAlerts } from './ops/alerts.js';
import { watchManagedCredit } from './ops/credit-watch.js';
import { preMigrationBackup } from './ops/pre-migration-backup.js';

/** How long after listening the background compile of the routes' schemas begins (the first requests come first). */
const COMPILE_AFTER_LISTENING_MS = 200;

/** The labels of the control plane's pods (the Helm chart sets them; the agents' NetworkPolicy admits them). */
export const CONTROL_PLANE_LABELS = {
  'app.kubernetes.io/name': 'berth',
  'app.kubernetes.io/component': 'control-plane',
};

export const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["x-berth-csrf"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.currentPassword',
  '*.newPassword',
  '*.botToken',
  '*.apiKey',
  '*.gatewayToken',
  '*.accessToken',
  '*.appSecret',
];

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
  requestTimeoutMs?: number;
  runner?: RunnerOptions;
  cacheTtlMs?: number;
  /** Where the local agent host's log lines go. */
  agentLogSink?: (line: string) => void;
  /** Lets tests point managed and byok providers at loopback fakes through the web tool as well. */
  allowPrivateFetch?: boolean;
  /** How the Kubernetes backend reaches in-cluster addresses (tests: a loopback stand-in). */
  kubernetesUrlFor?: UrlFor;
  /** The reconciler's interval (tests shorten it); RECONCILE_INTERVAL_SECONDS otherwise. */
  reconcileIntervalMs?: number;
  /** How often active assistants' workers are asked whether they are well (deployments/health-watch.ts). */
  healthWatchMs?: number;
  /** The built dashboard to serve (tests build their own); '' serves none; default: the shipped build. */
  dashboardDir?: string;
  /** More routes before the app is ready (the sandbox of `npm run demo` adds its Telegram page's). */
  extraRoutes?: (app: FastifyInstance) => void;
  /**
   * Start the local agent host once the API listens instead of before (`npm start`): the control
   * plane answers while the host starts, calls to workers wait for it, and `hostStarted` says how it went.
   */
  agentHostInBackground?: boolean;
  /** Alert windows and thresholds, and how long a receiver may take (tests shorten them). */
  alerts?: AlertTuning & { timeoutMs?: number; creditIntervalMs?: number };
}

export interface Runtime {
  app: FastifyInstance;
  /** http://host:port of the model gateway's own listener (/gateway/v1 is served only there). */
  gatewayUrl(): string;
  store: Store;
  services: Services;
  secrets: SecretBox;
  runner: JobRunner;
  reconciler: Reconciler;
  /** What the control plane can say about itself now (serving; the start-up pass's progress). */
  readiness(): ReadinessState;
  /** Resolves when the local agent host has started (at once for other backends); rejects if it could not. */
  hostStarted: Promise<void>;
  /** Resolves when the start-up reconcile pass has finished (ok or not). */
  restored: Promise<void>;
  /** Resolves when the start-up pass has finished and no job is running or due (tests use it). */
  idle(): Promise<void>;
  /**
   * Resolves when every route's serializers are compiled (benchmarks measure after it). The compile
   * begins a moment after the server listens: an app that is never listened on never resolves it.
   */
  compiled: Promise<void>;
  close(): Promise<void>;
}

export async function selectPayments(config: Config): Promise<PaymentsPort> {
  if (config.paymentProvider === 'local') return createLocalPayments(config.publicBaseUrl, config.planPricesUsd);
  return createStripePayments({
    secretKey: config.stripe.secretKey!,
    webhookSecret: config.stripe.webhookSecret,
    prices: config.stripe.prices,
    apiBase: config.stripe.apiBase,
    publicBaseUrl: config.publicBaseUrl,
  });
}

export async function createRuntime(config: Config, o: Overrides = {}): Promise<Runtime> {
  const logger = o.logger ?? createLogger(config.logLevel);
  const catalog = o.catalog ?? loadCatalog(config.modelCatalogPath);
  if (!catalog.provider(config.managedProvider)) {
    throw new Error(
      `MANAGED_PROVIDER: "${config.managedProvider}" is not a provider of the model catalog (${catalog.providers.map((p) => p.id).join(', ')})`,
    );
  }
  checkManagedPricing(catalog, config.managedProvider);
  // DATA_DIR holds the database, the generated secrets key and the agents' conversations.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  chmodSync(config.dataDir, 0o700);
  const secretsKey = resolveSecretsKey(config.secretsKey, config.dataDir);
  const secrets = createSecretBox(secretsKey);
  const events = new OpsEvents((err, name) =>
    logger.error({ err: err.message, event: name }, 'an ops listener failed'),
  );
  const now = o.now ?? (() => new Date());
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    beforeMigrate: preMigrationBackup(config, logger, events),
    now,
  });
  const { repos } = store;
  const jobs = repos.jobs;
  let localHost: LocalAgentHost | undefined;
  let workers = o.workers;
  let services!: Services;
  let app: FastifyInstance | undefined;
  // TELEGRAM_DELIVERY=webhook: each bot's webhook is the ingress route with its secret (ingress/),
  // on either backend; Telegram POSTs there and the worker never polls.
  const telegramWebhook: TelegramWebhookFor | undefined =
    config.telegramDelivery === 'webhook'
      ? (deploymentId) => ({
          url: `${config.publicBaseUrl}/hooks/telegram/${deploymentId}`,
          secretToken: telegramWebhookSecret(secrets, deploymentId),
        })
      : undefined;
  if (!workers) {
    if (config.workerBackend === 'local') {
      localHost = new LocalAgentHost({
        dataDir: join(config.dataDir, 'agents'),
        stateDir: config.dataDir,
        telegramApiRoot: config.telegramApiRoot,
        whatsappApiRoot: config.whatsappApiRoot,
        discord: { apiRoot: config.discordApiRoot, gatewayUrl: config.discordGatewayUrl },
        // The ingress route and its secret (ingress/): Telegram POSTs there, the worker never polls.
        telegramWebhook,
        logLevel: config.logLevel,
        log: logger,
        logSink: o.agentLogSink,
        allowPrivateFetch: o.allowPrivateFetch,
        allowInsecureMcp: config.mcpAllowInsecure,
        runAsUid: config.agentHostUid,
        onExit: ({ code, restarts }) =>
          events.emit('agent_host.restarted', { exitCode: code, restartsInWindow: restarts }),
        // The same restoring pass as at start-up: the host's workers are all gone.
        onRestart: () =>
          void reconciler.restore().then(
            () => reconciler.nudge(),
            (err) => logger.error({ err: (err as Error).message }, 'reconcile after agent host restart failed'),
          ),
      });
      workers = localHost;
    } else {
      // The Kubernetes client (about 30 MB resident) loads only when that backend is chosen.
      const [{ createKubernetesWorkers }, { loadKubeConfig }] = await Promise.all([
        import('./workers/kubernetes/backend.js'),
        import('./workers/kubernetes/api.js'),
      ]);
      workers = createKubernetesWorkers({
        ...config.kubernetes,
        kubeConfig: loadKubeConfig(),
        telegramApiRoot: config.telegramApiRoot,
        whatsappApiRoot: config.whatsappApiRoot,
        discordApiRoot: config.discordApiRoot,
        discordGatewayUrl: config.discordGatewayUrl,
        telegramWebhook,
        controlPlaneLabels: CONTROL_PLANE_LABELS,
        placements: repos.placements,
        now,
        urlFor: o.kubernetesUrlFor,
        metricsToken: config.agentMetricsToken ?? config.metricsToken,
        log: logger,
      });
    }
  }
  const ttl = o.cacheTtlMs ?? 3000;
  const usage = repos.usage;
  services = {
    ...repos,
    transaction: store.transaction,
    catalog,
    secrets,
    payments: o.payments ?? (await selectPayments(config)),
    workers,
    managedProvider: config.managedProvider,
    managedProviderApiKey: config.managedProviderApiKey,
    search: searchService(config),
    callbackAllowInsecure: config.callbackAllowInsecure,
    mcpAllowInsecure: config.mcpAllowInsecure,
    deployTimeoutMs: config.deployTimeoutMs,
    now,
    log: logger,
    cache: { keys: new TtlCache(ttl), targets: new TtlCache(ttl) },
    billing: {
      monthlyCreditsUsd: config.monthlyCreditsUsd,
      credentials: createGatewayCredentials(secretsKey),
      gatewayUrl: () => `${config.modelGatewayUrl ?? gatewayListener?.url ?? config.publicBaseUrl}${GATEWAY_PATH}`,
      periods: new TtlCache(30_000),
      uncapped: new UncappedPeriods(UNCAPPED_TTL_MS),
      settles: new SettleQueue(usage, logger),
    },
    limits: {
      rate: repos.rateLimits,
      rateLimitPerMinute: config.rateLimitPerMinute,
      maxSlotsPerUser: config.maxSlotsPerUser,
      maxKeysPerUser: config.maxKeysPerUser,
      maxOrganizationsPerUser: config.maxOrganizationsPerUser,
      chats: new ChatSlots(config.chatConcurrency),
    },
    accounts: {
      sessions: repos.sessions,
      organizations: repos.organizations,
      invitations: repos.invitations,
      resets: repos.resets,
      mailer: config.smtp.url ? smtpMailer(config.smtp.url, config.smtp.from) : undefined,
      signup: config.signup,
      publicBaseUrl: config.publicBaseUrl,
    },
    events,
  };
  // Before any chat: what a killed predecessor settled but had not booked is booked now.
  services.billing.settles.journal = await UsageJournal.open(join(config.dataDir, 'usage-journal'), usage, logger);
  if (config.mcpAllowInsecure)
    logger.warn(
      'MCP_ALLOW_INSECURE=true: http and private MCP server URLs are accepted. Never use this in production.',
    );
  // Telegram's own Bot API delivers webhooks to https only; http works against a local Bot API server.
  if (config.telegramDelivery === 'webhook' && !config.publicBaseUrl.startsWith('https:'))
    logger.warn(
      { publicBaseUrl: config.publicBaseUrl },
      "TELEGRAM_DELIVERY=webhook with an http PUBLIC_BASE_URL: Telegram's Bot API refuses webhooks that are not https (a local Bot API server takes them).",
    );
  if (config.callbackAllowInsecure)
    logger.warn(
      'CALLBACK_ALLOW_INSECURE=true: http and loopback callback URLs are accepted. Never use this in production.',
    );

  // Made at their first use: undici loads when something is sent, not at every start (the bundle
  // loads it on first use, scripts/bundle-server.mjs; docs/decisions/0027-scale.md).
  let callbackAgent: Dispatcher | undefined;
  const callbackDispatcher = () =>
    (callbackAgent ??= createPublicOnlyAgent({ allowPrivate: config.callbackAllowInsecure, timeoutMs: 15_000 }));
  await backfillBotTokenHashes(services);
  const runner = new JobRunner(jobs, logger, { leaseMs: config.jobLeaseMs, events, ...o.runner });
  runner.register('deploy', (job, ctx) => runDeployJob(services, job, ctx));
  runner.register('callback', (job) => runCallbackJob(services, callbackDispatcher(), job));
  runner.register('cancel_subscription', (job) => runCancelSubscriptionJob(services, job));
  runner.register('stop', (job) => runStopJob(services, job));
  runner.register('expire_checkout', (job) => runExpireCheckoutJob(services, job));
  runner.register('channel_update', (job) => runChannelUpdateJob(services, job));
  const alertTimeoutMs = o.alerts?.timeoutMs ?? 15_000;
  let alertAgent: Dispatcher | undefined;
  const alertDispatcher = () =>
    (alertAgent ??= createPublicOnlyAgent({ allowPrivate: true, timeoutMs: alertTimeoutMs }));
  runner.register('alert', (job) =>
    runAlertJob(
      {
        url: config.alerts.webhookUrl,
        format: config.alerts.format,
        dispatcher: alertDispatcher(),
        timeoutMs: alertTimeoutMs,
        now,
        log: logger,
      },
      job,
    ),
  );
  const stopAlerts = config.alerts.webhookUrl
    ? watchForAlerts({ events, repo: repos.alerts, jobs, now, log: logger }, o.alerts)
    : () => {};
  const stopCreditWatch = watchManagedCredit(
    config,
    catalog,
    events,
    alertDispatcher,
    logger,
    o.alerts?.creditIntervalMs,
  );

  const reconciler = new Reconciler(
    services,
    repos.leases,
    o.reconcileIntervalMs ?? config.reconcileIntervalMs,
    config.retention,
  );
  // prom-client loads only when METRICS_TOKEN asks for /metrics.
  const metrics: { metrics: Metrics; token: string } | undefined = config.metricsToken
    ? {
        metrics: new (await import('./ops/metrics.js')).Metrics({
          deployments: services.deployments,
          jobs,
          workers,
          events,
        }),
        token: config.metricsToken,
      }
    : undefined;
  const compilations = new Compilations();
  app = await buildApp({
    compilations,
    metrics,
    readiness: { store, workers, runner, log: logger, restore: () => readiness.snapshot().workers },
    restoring: () => reconciler.restoring,
    services,
    logger,
    apiEnabled: config.apiEnabled,
    publicBaseUrl: config.publicBaseUrl,
    whatsappApiRoot: config.whatsappApiRoot,
    discordApiRoot: config.discordApiRoot,
    trustProxy: config.trustProxy,
    upstreamTimeoutMs: o.upstreamTimeoutMs,
    requestTimeoutMs: o.requestTimeoutMs,
    dashboardDir: o.dashboardDir === undefined ? builtDashboardDir() : o.dashboardDir || undefined,
  });
  o.extraRoutes?.(app);
  let gatewayListener: GatewayListener | undefined;
  let hostStarted: Promise<void> = Promise.resolve();
  try {
    gatewayListener = await startGatewayListener(app, config.gateway.host, config.gateway.port);
    if (localHost && o.agentHostInBackground) {
      // Spawned once the API listens (spawning is synchronous, and the host's boot takes a core):
      // calls to the host wait for it meanwhile. The caller hears how it went through hostStarted.
      hostStarted = localHost.startAfter(new Promise((r) => app.server.once('listening', r)));
      hostStarted.catch(() => {});
    } else if (localHost) {
      hostStarted = localHost.start();
      await hostStarted;
    }
  } catch (err) {
    await gatewayListener?.close();
    await localHost?.stop();
    await store.close();
    throw err;
  }
  // The API answers while the start-up pass creates the workers the store wants (a few at a time,
  // yielding to requests); readiness says how far it has got. The continuous passes follow it.
  const readiness = new StartUpProgress();
  // Statistics first (PostgreSQL): without them, the pass's pages of the desired state are planned
  // as a scan and a sort of every row after the cursor (platform/store/statistics.ts).
  const freshened = freshenStatistics(store, logger);
  const restored = reconciler.restore({ progress: readiness.progress, after: freshened }).then(
    () => readiness.restored(),
    (err: Error) => {
      readiness.failed(err);
      logger.error({ err: err.message }, 'start-up reconcile failed; the reconciler retries');
    },
  );
  runner.start();
  reconciler.start();
  const healthWatch = new HealthWatch(
    services,
    o.healthWatchMs,
    workers.clusterWide ? () => reconciler.isLeader() : undefined,
  );
  healthWatch.start();
  // The routes' validators and serializers, compiled in the background from a moment after the caller
  // listens (http/lazy-compile.ts): begun at once, the first steps (an Ajv instance, ~35 ms) ran
  // while Fastify was still getting ready to listen and delayed the first answer. A request that
  // comes sooner compiles its own route's, as before.
  const compiled = compilations.compileRemaining(
    new Promise((r) => app.server.once('listening', () => setTimeout(r, COMPILE_AFTER_LISTENING_MS).unref())),
  );
  return {
    compiled,
    app,
    store,
    services,
    secrets,
    runner,
    reconciler,
    readiness: () => readiness.snapshot(),
    hostStarted,
    restored,
    idle: () => restored.then(() => runner.idle()),
    gatewayUrl: () => gatewayListener!.url,
    async close() {
      compilations.stop();
      await gatewayListener?.close();
      await app.close();
      await reconciler.stop();
      await healthWatch.stop();
      workers.close?.();
      // Replies settled in the last milliseconds are written before the store closes.
      await services.billing.settles.drain();
      await runner.stop();
      await localHost?.stop();
      stopAlerts();
      stopCreditWatch();
      await callbackAgent?.close();
      await alertAgent?.close();
      await store.close();
    },
  };
}

function searchService(config: Config): Services['search'] {
  const provider = selectSearchProvider(config.search);
  return provider && { provider, priceUsd: config.search.priceUsd, timeoutMs: config.search.timeoutMs };
}

/** The store's missing or stale statistics gathered, and said for a table of 1,000 rows or more; never fails. */
async function freshenStatistics(store: Store, logger: Logger): Promise<void> {
  const t0 = performance.now();
  try {
    const { analyzed, busy } = await store.freshenStatistics();
    if (analyzed.length)
      logger.info(
        { tables: analyzed, ms: Math.round(performance.now() - t0) },
        'tables of 1,000 rows or more had no planner statistics, or stale ones (more rows changed since their last ANALYZE than half they hold: a database just restored or loaded in bulk): analyzed them',
      );
    if (busy.length)
      logger.warn(
        { tables: busy },
        'tables without planner statistics, or with stale ones, were locked by another session (a VACUUM, a migration): left for autovacuum, and queries on them may be slow until it analyzes them',
      );
  } catch (err) {
    logger.warn(
      { err: (err as Error).message },
      'gathering missing or stale planner statistics failed: queries may be slow until autovacuum analyzes the tables',
    );
  }
}
