import type { SearchProvider } from './billing/gateway/search/port.js';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from './platform/errors/app-error.js';
import type { Owner } from './platform/store/deployments.js';
import type { Repos, Transact } from './platform/store/repos.js';
import type { ModelCatalog } from './catalog/model-catalog.js';
import type { SecretBox } from './platform/crypto/secret-box.js';
import type { PaymentsPort } from './payments/port.js';
import type { WorkersPort } from './workers/port.js';
import type { TtlCache } from './platform/cache/ttl-cache.js';
import type { GatewayCredentials } from './billing/gateway-credential.js';
import type { Metered } from './billing/metered.js';
import type { KeyOwner } from './accounts/authenticate.js';
import type { ChatSlots } from './chat/chat-slots.js';
import type { SettleQueue } from './billing/settle-queue.js';
import type { UncappedPeriods } from './billing/uncapped-periods.js';
import type { Accounts } from './accounts/context.js';
import type { OpsEvents } from './platform/events.js';

export interface CachedTarget {
  framework: string;
  status: string;
  workerUrl: string | null;
  /** The worker's name at its backend (WorkersPort calls: the playground's transcripts). */
  workerName: string;
  gatewayToken: string | null;
  modelProvider: string;
  createdAt: string;
  /** What metering needs to know about the deployment (billing/allowance.ts). */
  meter?: Metered & { modelId: string };
}

/**
 * The chat-target cache is keyed by owner and deployment; every reader and invalidator uses this.
 * A deployment's owner never changes: a user's personal deployments, or an organization's.
 */
export const chatTargetKey = (d: Owner & { id: string }) =>
  d.organizationId ? `org:${d.organizationId}:${d.id}` : `${d.userId}:${d.id}`;

/**
 * The store's repositories a capability reaches directly (the accounts' and the limits' own are in
 * `accounts` and `limits`; the operator's cross-tenant views only in admin/).
 */
export type StoreRepos = Omit<
  Repos,
  'sessions' | 'organizations' | 'invitations' | 'resets' | 'rateLimits' | 'operatorViews'
>;

/**
 * What the services may touch. Narrow on purpose: no config object, no request, no database handle
 * (a verb asks for the repositories it uses, and for `transaction` when it writes several at once).
 */
export interface Services extends StoreRepos {
  transaction: Transact;
  catalog: ModelCatalog;
  secrets: SecretBox;
  payments: PaymentsPort;
  workers: WorkersPort;
  managedProvider: string;
  managedProviderApiKey: string | undefined;
  /** The operator's web search behind its port (gateway/search/), absent when SEARCH_PROVIDER is unset. */
  search?: { provider: SearchProvider; priceUsd: number; timeoutMs: number };
  callbackAllowInsecure: boolean;
  /** MCP_ALLOW_INSECURE (DESIGN §9.2): http and private MCP server URLs are accepted. */
  mcpAllowInsecure?: boolean;
  deployTimeoutMs: number;
  now: () => Date;
  log: FastifyBaseLogger;
  /** Short-lived caches of the chat hot path: API key → user, deployment → chat target. */
  cache: { keys: TtlCache<string, KeyOwner>; targets: TtlCache<string, CachedTarget> };
  billing: Billing;
  /** Per-key request counters (http/rate-limit.ts) and the other per-tenant limits. */
  limits: Limits;
  /** Browser sessions, organizations, invitations, sign-up mode (services/accounts/). */
  accounts: Accounts;
  /** What happened, for ops/ (metrics, alerts) to listen to: verbs emit, never measure. */
  events: OpsEvents;
}

/** Per-tenant limits (docs/decisions/0016-limits.md). */
export interface Limits {
  rate: Repos['rateLimits'];
  rateLimitPerMinute: number;
  maxSlotsPerUser: number;
  /** Live API keys per person and organizations per person (0 = no cap). */
  maxKeysPerUser: number;
  maxOrganizationsPerUser: number;
  /** Chats in flight per key and per assistant, in this process. */
  chats: ChatSlots;
}

/** Metering: allowances per mode, the gateway's credentials and where workers reach it. */
export interface Billing {
  monthlyCreditsUsd: { managed: number; unlimited: number };
  credentials: GatewayCredentials;
  /** Base URL (…/gateway/v1) of the model gateway as workers see it. */
  gatewayUrl(): string;
  /** Periods whose ledger row is known to exist (skips a write on the hot path). */
  periods: TtlCache<string, true>;
  /**
   * Periods read with no allowance (a byok assistant without a spend cap), for a second: the chat
   * proxy's early check skips its read meanwhile. The model gateway still reads the period on every
   * model call, so a cap set on another replica holds at once there (decision 0027, round 5).
   */
  uncapped: UncappedPeriods;
  /** Settlements written in batches (billing/settle-queue.ts). */
  settles: SettleQueue;
}

/**
 * Whose resources a request sees: a user's personal deployments (organizationId null), or an
 * organization's (every key of it and every member acting as it).
 */
export type { Owner };

/**
 * Who is asking. Every verb takes it and checks ownership first. `keyId` is the API key that
 * authenticated the request, null for a browser session.
 */
export interface Caller extends Owner {
  keyId: string | null;
}

/**
 * Defence in depth: a verb never runs for nobody, whatever the HTTP layer did (a route that lost
 * its auth config would otherwise list, buy or chat with `user_id = undefined`).
 */
export function assertCaller(caller: Partial<Caller> | undefined): asserts caller is Caller {
  if (
    typeof caller?.userId !== 'string' ||
    caller.userId === '' ||
    !(caller.organizationId === null || (typeof caller.organizationId === 'string' && caller.organizationId !== ''))
  ) {
    throw new AppError('UNAUTHORIZED', 'An API key is required: send it in the X-API-Key header.');
  }
}

/** The owner part of a caller, for the store's ownership filters. */
export const ownerOf = (c: Owner): Owner => ({ userId: c.userId, organizationId: c.organizationId });
