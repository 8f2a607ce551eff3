// The one module that reads the environment. Everything else receives a Config.
import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { shippedFile } from '../package-root.js';

export type PaymentProviderName = 'local' | 'stripe';
export type WorkerBackendName = 'local' | 'kubernetes';

export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  apiEnabled: boolean;
  secretsKey: Buffer | undefined;
  paymentProvider: PaymentProviderName;
  stripe: {
    secretKey: string | undefined;
    webhookSecret: string | undefined;
    prices: { byok?: string; managed?: string; unlimited?: string };
    apiBase: string | undefined;
  };
  workerBackend: WorkerBackendName;
  /**
   * The uid (and gid) the local agent host runs as when the control plane runs as root
   * (AGENT_HOST_UID, default 64999, a uid of its own: not "nobody", which other services share): another uid cannot read the control plane's
   * /proc/<pid>/environ or memory. Undefined when not root (the host then shares our uid).
   */
  agentHostUid: number | undefined;
  telegramApiRoot: string | undefined;
  /** How workers' bots get their updates (DESIGN §9.1): long polling, or webhooks through the ingress. */
  telegramDelivery: 'polling' | 'webhook';
  /** Meta's Graph API with its version (DESIGN §9.1); tests point it at FakeWhatsApp. */
  whatsappApiRoot: string;
  /** Discord's REST root, unversioned (DISCORD_API_ROOT; tests point it at FakeDiscord). */
  discordApiRoot: string;
  /** DISCORD_GATEWAY_URL: the Gateway the workers connect to instead of the one Discord names. */
  discordGatewayUrl: string | undefined;
  modelCatalogPath: string;
  managedProvider: string;
  managedProviderApiKey: string | undefined;
  callbackAllowInsecure: boolean;
  /** MCP_ALLOW_INSECURE: owners' MCP servers may be http and private addresses (development, tests). */
  mcpAllowInsecure: boolean;
  logLevel: string;
  deployTimeoutMs: number;
  /** How often the workers reconciler compares the store with the workers backend. */
  reconcileIntervalMs: number;
  /** How long tombstones of deleted deployments and finished jobs are kept. */
  retention: { tombstonesMs: number; jobsMs: number; pendingSlotsMs: number };
  jobLeaseMs: number;
  /** Where "Forgot password" mails its link from (unset SMTP_URL: no mail; `admin reset-link` instead). */
  smtp: { url: string | undefined; from: string };
  /** What a slot costs a month, shown in the plan picker and on the local checkout (local payments). */
  planPricesUsd: Record<'byok' | 'managed' | 'unlimited', number | undefined>;
  /** Monthly allowance per deployment in USD, by mode (DESIGN.md §3). */
  monthlyCreditsUsd: { managed: number; unlimited: number };
  /** Requests per API key per minute; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** Slots one person may hold: bought by them anywhere, plus those of organizations they own; 0 = no cap. */
  maxSlotsPerUser: number;
  /** Live API keys one person may hold (personal and for organizations); 0 = no cap. */
  maxKeysPerUser: number;
  /** Organizations one person may belong to when creating another; 0 = no cap. */
  maxOrganizationsPerUser: number;
  /**
   * Whose X-Forwarded-For is believed (Fastify trustProxy): false (nobody: the peer is the client),
   * a number of proxy hops, or addresses/CIDRs of the proxies (DESIGN.md §7.5).
   */
  trustProxy: false | number | string[];
  /** `closed`: sign-up only with an invitation link (`npx berth admin invite --email E`). */
  signup: 'open' | 'closed';
  /** Chats in flight per API key and per assistant, per control-plane process; 0 = no cap. */
  chatConcurrency: { perKey: number; perAssistant: number };
  /** Where managed workers reach the model gateway; unset → the gateway listener's own address. */
  modelGatewayUrl: string | undefined;
  /** The operator's web search (DESIGN §7.4), reached by agents through the gateway; off without a provider. */
  search: {
    provider: 'searxng' | 'brave' | 'tavily' | undefined;
    url: string | undefined;
    apiKey: string | undefined;
    /** Booked in the usage ledger per query. */
    priceUsd: number;
    /** A query the provider has not answered by then gets a sentence instead. */
    timeoutMs: number;
  };
  /**
   * The model gateway's own listener (GATEWAY_HOST, GATEWAY_PORT): /gateway/v1 is served there
   * and never on the public one. Default 127.0.0.1 and a free port (the local agent host's view).
   */
  gateway: { host: string; port: number };
  /** Bearer token that reads GET /metrics; unset: no /metrics (404). */
  metricsToken: string | undefined;
  /**
   * The bearer token of the agents' own /metrics on Kubernetes (copied into the workers
   * namespace); unset: they take METRICS_TOKEN.
   */
  agentMetricsToken: string | undefined;
  /** Where alerts go (ops/alerts.ts); unset: no alerts. */
  alerts: {
    webhookUrl: string | undefined;
    format: 'slack' | 'standard';
    /** ALERT_LOW_CREDIT_USD: alert when the managed provider's remaining credit falls below it; unset: not checked. */
    lowCreditUsd: number | undefined;
  };
  /** Encrypts the secrets key in a backup (admin backup); required by backup and restore only. */
  backupPassphrase: string | undefined;
  kubernetes: {
    namespace: string;
    placement: 'shared' | 'dedicated';
    agentImage: string;
    hostCapacity: number;
    controlPlaneNamespace: string;
    /** KUBERNETES_STORAGE_CLASS: the StorageClass of the agents' data claims; unset: the cluster's default. */
    storageClassName: string | undefined;
    /** KUBERNETES_METRICS_NAMESPACE: where Prometheus runs; the agents' NetworkPolicy lets it scrape. */
    metricsScraperNamespace: string | undefined;
  };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_MODEL_CATALOG = shippedFile('catalog/models.json');

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** A bearer token someone types into a scraper's config: long enough, and no spaces. */
function bearerToken(env: Env, name: string): string | undefined {
  const v = str(env, name);
  if (v !== undefined && (v.length < 16 || /\s/.test(v)))
    throw new ConfigError(name, 'expected at least 16 characters without spaces (try: openssl rand -hex 24)');
  return v;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const v = str(env, name);
  if (v === undefined) return fallback;
  if (/^(true|1|yes|on)$/i.test(v)) return true;
  if (/^(false|0|no|off)$/i.test(v)) return false;
  throw new ConfigError(name, `expected true or false, got "${v}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const v = str(env, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${v}"`);
  }
  return v as T;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const v = str(env, name);
  if (v === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError(name, `not a URL: "${v}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL`);
  }
  return v.replace(/\/+$/, '');
}

/** A price in USD, or undefined when unset. */
function optionalNumber(env: Env, name: string): number | undefined {
  return str(env, name) === undefined ? undefined : number(env, name, 0, { max: 1_000_000 });
}

function number(env: Env, name: string, fallback: number, opts: { integer?: boolean; max?: number } = {}): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  const v = Number(raw);
  if (
    !Number.isFinite(v) ||
    v < 0 ||
    (opts.integer && !Number.isInteger(v)) ||
    (opts.max !== undefined && v > opts.max)
  ) {
    throw new ConfigError(
      name,
      `expected ${opts.integer ? 'a whole number' : 'a number'} >= 0${opts.max !== undefined ? ` and <= ${opts.max}` : ''}, got "${raw}"`,
    );
  }
  return v;
}

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY: a hop count, or a comma-separated list of addresses, CIDRs and proxy-addr keywords. */
function trustProxy(env: Env): false | number | string[] {
  const v = str(env, 'TRUST_PROXY');
  if (v === undefined || /^(false|0|no|off)$/i.test(v)) return false;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > 10) throw new ConfigError('TRUST_PROXY', `expected at most 10 proxy hops, got "${v}"`);
    return hops;
  }
  // "true" would believe any client's X-Forwarded-For: every limit keyed by address would be the
  // client's to choose. Name the proxies instead.
  if (/^(true|yes|on)$/i.test(v))
    throw new ConfigError(
      'TRUST_PROXY',
      "believing every X-Forwarded-For lets clients choose their address; give the number of proxy hops (e.g. 1) or the proxies' addresses/CIDRs",
    );
  const entries = v.split(',').map((e) => e.trim());
  for (const e of entries) {
    if (PROXY_KEYWORDS.includes(e)) continue;
    const [addr, bits, extra] = e.split('/');
    const family = isIP(addr ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const badBits = bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > maxBits);
    if (!family || badBits || extra !== undefined)
      throw new ConfigError(
        'TRUST_PROXY',
        `"${e}" is not an address, a CIDR or one of ${PROXY_KEYWORDS.join(', ')} (or give a hop count)`,
      );
  }
  return entries;
}

/** The public base URL when PUBLIC_BASE_URL is not set: where the API listens. */
function derivedBaseUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * The configuration on the port actually chosen for PORT=0: the public base URL follows when it
 * was derived from the port (links in the banner, checkout, invitations, OpenAPI's server), and
 * stays as given when PUBLIC_BASE_URL set it.
 */
export function onChosenPort(config: Config, port: number): Config {
  const derived = config.publicBaseUrl === derivedBaseUrl(config.host, config.port);
  return { ...config, port, ...(derived ? { publicBaseUrl: derivedBaseUrl(config.host, port) } : {}) };
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const portRaw = str(env, 'PORT') ?? '8080';
  const port = Number(portRaw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError('PORT', `expected a port number 0-65535, got "${portRaw}"`);
  }
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const publicBaseUrl = url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? derivedBaseUrl(host, port);
  const dataDirRaw = str(env, 'DATA_DIR') ?? './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);

  let secretsKey: Buffer | undefined;
  const keyRaw = str(env, 'SECRETS_KEY');
  if (keyRaw !== undefined) {
    secretsKey = Buffer.from(keyRaw, 'base64');
    if (secretsKey.length !== 32) {
      throw new ConfigError('SECRETS_KEY', 'expected 32 bytes, base64-encoded (try: openssl rand -base64 32)');
    }
  } else if (databaseUrl) {
    // Replicas sharing one PostgreSQL must share one key; a key generated per machine would
    // make every other replica unable to read the secrets this one wrote.
    throw new ConfigError(
      'SECRETS_KEY',
      'required when DATABASE_URL is set (generate one with: openssl rand -base64 32)',
    );
  }

  const paymentProvider = oneOf(env, 'PAYMENT_PROVIDER', ['local', 'stripe'] as const, 'local');
  const stripeSecretKey = str(env, 'STRIPE_SECRET_KEY');
  if (paymentProvider === 'stripe' && !stripeSecretKey) {
    throw new ConfigError('STRIPE_SECRET_KEY', 'required when PAYMENT_PROVIDER=stripe');
  }
  const stripeWebhookSecret = str(env, 'STRIPE_WEBHOOK_SECRET');
  if (paymentProvider === 'stripe' && !stripeWebhookSecret) {
    throw new ConfigError('STRIPE_WEBHOOK_SECRET', 'required when PAYMENT_PROVIDER=stripe');
  }

  const catalogRaw = str(env, 'MODEL_CATALOG');
  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`);
  }

  const deployTimeoutRaw = str(env, 'DEPLOY_TIMEOUT_SECONDS') ?? '120';
  const deployTimeout = Number(deployTimeoutRaw);
  if (!Number.isFinite(deployTimeout) || deployTimeout <= 0 || deployTimeout > 3600) {
    throw new ConfigError('DEPLOY_TIMEOUT_SECONDS', `expected seconds between 1 and 3600, got "${deployTimeoutRaw}"`);
  }

  const reconcileInterval = number(env, 'RECONCILE_INTERVAL_SECONDS', 5, { max: 3600 });
  if (reconcileInterval < 1) throw new ConfigError('RECONCILE_INTERVAL_SECONDS', 'expected at least 1 second');

  const leaseRaw = str(env, 'JOB_LEASE_SECONDS') ?? '15';
  const lease = Number(leaseRaw);
  if (!Number.isFinite(lease) || lease < 1 || lease > 600)
    throw new ConfigError('JOB_LEASE_SECONDS', `expected seconds between 1 and 600, got "${leaseRaw}"`);

  const k8sNamespace = str(env, 'KUBERNETES_NAMESPACE') ?? 'berth-workers';
  const dnsLabel = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
  if (!dnsLabel.test(k8sNamespace))
    throw new ConfigError('KUBERNETES_NAMESPACE', `not a namespace name: "${k8sNamespace}"`);
  const cpNamespace = str(env, 'KUBERNETES_CONTROL_PLANE_NAMESPACE') ?? k8sNamespace;
  const storageClassName = str(env, 'KUBERNETES_STORAGE_CLASS');
  // A StorageClass name is a DNS subdomain; anything else would only fail later, at the first deploy.
  if (storageClassName !== undefined && !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(storageClassName))
    throw new ConfigError('KUBERNETES_STORAGE_CLASS', `not a StorageClass name: "${storageClassName}"`);
  if (!dnsLabel.test(cpNamespace))
    throw new ConfigError('KUBERNETES_CONTROL_PLANE_NAMESPACE', `not a namespace name: "${cpNamespace}"`);
  const scraperNamespace = str(env, 'KUBERNETES_METRICS_NAMESPACE');
  if (scraperNamespace !== undefined && !dnsLabel.test(scraperNamespace))
    throw new ConfigError('KUBERNETES_METRICS_NAMESPACE', `not a namespace name: "${scraperNamespace}"`);
  const capacityRaw = str(env, 'KUBERNETES_HOST_CAPACITY') ?? '500';
  const capacity = Number(capacityRaw);
  if (!Number.isInteger(capacity) || capacity < 1 || capacity > 100_000) {
    throw new ConfigError(
      'KUBERNETES_HOST_CAPACITY',
      `expected a whole number of assistants per host between 1 and 100000, got "${capacityRaw}"`,
    );
  }

  const searchProviderRaw = str(env, 'SEARCH_PROVIDER');
  const searchProvider = searchProviderRaw
    ? oneOf(env, 'SEARCH_PROVIDER', ['searxng', 'brave', 'tavily'] as const, 'searxng')
    : undefined;
  const searchUrl = url(env, 'SEARCH_URL', ['http:', 'https:']);
  const searchApiKey = str(env, 'SEARCH_API_KEY');
  if (searchProvider && !searchUrl)
    throw new ConfigError('SEARCH_URL', `required when SEARCH_PROVIDER=${searchProvider}`);
  if ((searchProvider === 'brave' || searchProvider === 'tavily') && !searchApiKey)
    throw new ConfigError('SEARCH_API_KEY', `required when SEARCH_PROVIDER=${searchProvider}`);
  const metricsToken = bearerToken(env, 'METRICS_TOKEN');
  // The key the agent pods hold on Kubernetes; without it they hold METRICS_TOKEN itself, which
  // also reads the control plane's /metrics.
  const agentMetricsToken = bearerToken(env, 'AGENT_METRICS_TOKEN');
  if (agentMetricsToken !== undefined && agentMetricsToken === metricsToken)
    throw new ConfigError(
      'AGENT_METRICS_TOKEN',
      'must differ from METRICS_TOKEN: it is the key the agent pods hold (try: openssl rand -hex 24)',
    );

  return {
    port,
    host,
    publicBaseUrl: publicBaseUrl.replace(/\/+$/, ''),
    dataDir,
    databaseUrl,
    apiEnabled: bool(env, 'ASSISTANTS_API_V1_ENABLED', true),
    secretsKey,
    paymentProvider,
    stripe: {
      secretKey: stripeSecretKey,
      webhookSecret: stripeWebhookSecret,
      prices: {
        byok: str(env, 'STRIPE_PRICE_BYOK'),
        managed: str(env, 'STRIPE_PRICE_MANAGED'),
        unlimited: str(env, 'STRIPE_PRICE_UNLIMITED'),
      },
      apiBase: url(env, 'STRIPE_API_BASE', ['http:', 'https:']),
    },
    workerBackend: oneOf(env, 'WORKER_BACKEND', ['local', 'kubernetes'] as const, 'local'),
    agentHostUid:
      process.getuid?.() === 0
        ? number(env, 'AGENT_HOST_UID', 64999, { integer: true, max: 4_294_967_294 })
        : undefined,
    telegramApiRoot: url(env, 'TELEGRAM_API_ROOT', ['http:', 'https:']),
    telegramDelivery: oneOf(env, 'TELEGRAM_DELIVERY', ['polling', 'webhook'] as const, 'polling'),
    whatsappApiRoot: (url(env, 'WHATSAPP_API_ROOT', ['http:', 'https:']) ?? 'https://graph.facebook.com/v21.0').replace(
      /\/+$/,
      '',
    ),
    discordApiRoot: (url(env, 'DISCORD_API_ROOT', ['http:', 'https:']) ?? 'https://discord.com/api').replace(
      /\/+$/,
      '',
    ),
    discordGatewayUrl: url(env, 'DISCORD_GATEWAY_URL', ['ws:', 'wss:']),
    modelCatalogPath: catalogRaw ? resolve(cwd, catalogRaw) : DEFAULT_MODEL_CATALOG,
    managedProvider: str(env, 'MANAGED_PROVIDER') ?? 'openrouter',
    managedProviderApiKey: str(env, 'MANAGED_PROVIDER_API_KEY'),
    callbackAllowInsecure: bool(env, 'CALLBACK_ALLOW_INSECURE', false),
    mcpAllowInsecure: bool(env, 'MCP_ALLOW_INSECURE', false),
    logLevel,
    deployTimeoutMs: deployTimeout * 1000,
    reconcileIntervalMs: reconcileInterval * 1000,
    retention: {
      tombstonesMs: number(env, 'DELETED_RETENTION_HOURS', 72, { max: 24 * 365 }) * 3600_000,
      jobsMs: number(env, 'JOB_RETENTION_DAYS', 14, { max: 3650 }) * 24 * 3600_000,
      // Long past the checkout's own expiry (24 h) and a delayed payment method's settling.
      pendingSlotsMs: number(env, 'PENDING_SLOT_RETENTION_HOURS', 168, { max: 24 * 365 }) * 3600_000,
    },
    jobLeaseMs: lease * 1000,
    planPricesUsd: {
      byok: optionalNumber(env, 'PLAN_PRICE_BYOK_USD'),
      managed: optionalNumber(env, 'PLAN_PRICE_MANAGED_USD'),
      unlimited: optionalNumber(env, 'PLAN_PRICE_UNLIMITED_USD'),
    },
    monthlyCreditsUsd: {
      managed: number(env, 'MANAGED_MONTHLY_CREDITS_USD', 5, { max: 1_000_000 }),
      unlimited: number(env, 'UNLIMITED_MONTHLY_CREDITS_USD', 50, { max: 1_000_000 }),
    },
    rateLimitPerMinute: number(env, 'RATE_LIMIT_PER_MINUTE', 600, { integer: true, max: 1_000_000 }),
    signup: oneOf(env, 'SIGNUP', ['open', 'closed'] as const, 'open'),
    smtp: {
      url: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
      from: str(env, 'SMTP_FROM') ?? `Berth <no-reply@${new URL(publicBaseUrl).hostname}>`,
    },
    maxSlotsPerUser: number(env, 'MAX_SLOTS_PER_USER', 100, { integer: true, max: 1_000_000 }),
    maxKeysPerUser: number(env, 'MAX_KEYS_PER_USER', 50, { integer: true, max: 1_000_000 }),
    maxOrganizationsPerUser: number(env, 'MAX_ORGANIZATIONS_PER_USER', 10, { integer: true, max: 1_000_000 }),
    trustProxy: trustProxy(env),
    chatConcurrency: {
      perKey: number(env, 'CHAT_CONCURRENCY_PER_KEY', 20, { integer: true, max: 100_000 }),
      perAssistant: number(env, 'CHAT_CONCURRENCY_PER_ASSISTANT', 10, { integer: true, max: 100_000 }),
    },
    modelGatewayUrl: url(env, 'MODEL_GATEWAY_URL', ['http:', 'https:']),
    search: {
      provider: searchProvider,
      url: searchUrl,
      apiKey: searchApiKey,
      priceUsd: number(env, 'SEARCH_PRICE_USD', 0.005, { max: 100 }),
      timeoutMs: Math.max(1, number(env, 'SEARCH_TIMEOUT_SECONDS', 8, { max: 60 })) * 1000,
    },
    gateway: {
      host: str(env, 'GATEWAY_HOST') ?? '127.0.0.1',
      port: number(env, 'GATEWAY_PORT', 0, { integer: true, max: 65535 }),
    },
    metricsToken,
    agentMetricsToken,
    alerts: {
      webhookUrl: url(env, 'ALERT_WEBHOOK_URL', ['http:', 'https:']),
      format: oneOf(env, 'ALERT_WEBHOOK_FORMAT', ['slack', 'standard'] as const, 'slack'),
      lowCreditUsd: optionalNumber(env, 'ALERT_LOW_CREDIT_USD'),
    },
    backupPassphrase:
      env.BACKUP_PASSPHRASE === undefined || env.BACKUP_PASSPHRASE === '' ? undefined : env.BACKUP_PASSPHRASE,
    kubernetes: {
      namespace: k8sNamespace,
      placement: oneOf(env, 'KUBERNETES_PLACEMENT', ['shared', 'dedicated'] as const, 'shared'),
      agentImage: str(env, 'AGENT_IMAGE') ?? 'berth-agent:latest',
      hostCapacity: capacity,
      controlPlaneNamespace: cpNamespace,
      storageClassName,
      metricsScraperNamespace: scraperNamespace,
    },
  };
}
