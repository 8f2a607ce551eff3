// Every repository of the store, made here and nowhere else: over the pool (store.repos) or over
// one transaction (store.transaction(repos => …)). A capability asks for the repositories it uses
// and never holds the Kysely handle, so the SQL, its dialect differences and its transactions stay
// in platform/store/ (DESIGN §8; .dependency-cruiser.cjs holds it so).
import type { Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';
import { AlertRepo } from './alerts.js';
import { CallbackSequenceRepo } from './callback-sequences.js';
import { ChannelRepo, ChannelUpdateRepo } from './channels.js';
import { DeploymentRepo } from './deployments.js';
import { IdempotencyRepo } from './idempotency-keys.js';
import { InvitationRepo } from './invitations.js';
import { JobQueue } from './jobs.js';
import { LeaseRepo } from './leases.js';
import { McpServersRepo } from './mcp-servers.js';
import { OperatorViewRepo } from './operator-views.js';
import { OrganizationRepo } from './organizations.js';
import { PasswordResetRepo } from './password-resets.js';
import { PaymentEventRepo } from './payment-events.js';
import { RateLimitRepo } from './rate-limits.js';
import { SessionRepo } from './sessions.js';
import { SettingsRepo } from './settings.js';
import { StoredResponseRepo } from './stored-responses.js';
import { TombstoneRepo } from './tombstones.js';
import { UsageRepo } from './usage.js';
import { UserRepo } from './users.js';
import { WorkerPlacementRepo } from './worker-placements.js';

interface Context {
  dialect: Dialect;
  now: () => Date;
}

const MAKERS = {
  alerts: (db) => new AlertRepo(db),
  callbackSequences: (db) => new CallbackSequenceRepo(db),
  channels: (db) => new ChannelRepo(db),
  channelUpdates: (db) => new ChannelUpdateRepo(db),
  deployments: (db) => new DeploymentRepo(db),
  idempotencyKeys: (db) => new IdempotencyRepo(db),
  invitations: (db) => new InvitationRepo(db),
  jobs: (db, c) => new JobQueue(db, c.dialect, c.now),
  leases: (db) => new LeaseRepo(db),
  mcpServers: (db) => new McpServersRepo(db),
  operatorViews: (db) => new OperatorViewRepo(db),
  organizations: (db) => new OrganizationRepo(db),
  paymentEvents: (db) => new PaymentEventRepo(db),
  placements: (db) => new WorkerPlacementRepo(db),
  rateLimits: (db) => new RateLimitRepo(db),
  resets: (db) => new PasswordResetRepo(db),
  responses: (db) => new StoredResponseRepo(db),
  sessions: (db) => new SessionRepo(db),
  settings: (db) => new SettingsRepo(db),
  tombstones: (db) => new TombstoneRepo(db),
  usage: (db, c) => new UsageRepo(db, c.dialect),
  users: (db) => new UserRepo(db),
} satisfies Record<string, (db: Kysely<Database>, c: Context) => unknown>;

/** The store's repositories, by name. */
export type Repos = { readonly [K in keyof typeof MAKERS]: ReturnType<(typeof MAKERS)[K]> };

/** Runs `work` in one transaction: it commits when `work` resolves and rolls back when it throws. */
export type Transact = <T>(work: (repos: Repos) => Promise<T>) => Promise<T>;

/**
 * Each repository is made the first time it is asked for: a transaction that touches two tables
 * builds two (DeploymentRepo compiles its hot queries when made).
 */
function reposOver(db: Kysely<Database>, c: Context): Repos {
  const repos = {} as Record<string, unknown>;
  for (const [name, make] of Object.entries(MAKERS) as Array<[string, (db: Kysely<Database>, c: Context) => unknown]>) {
    let made: unknown;
    Object.defineProperty(repos, name, { enumerable: true, get: () => (made ??= make(db, c)) });
  }
  return repos as Repos;
}

export function openRepos(db: Kysely<Database>, c: Context): { repos: Repos; transaction: Transact } {
  const repos = reposOver(db, c);
  const transaction: Transact = async (work) => {
    let enqueued = false;
    const result = await db.transaction().execute((trx) => {
      const inside = reposOver(trx, c);
      // A job written in the transaction is invisible until it commits: the runner is nudged after.
      inside.jobs.onEnqueue = () => {
        enqueued = true;
      };
      return work(inside);
    });
    if (enqueued) repos.jobs.onEnqueue?.();
    return result;
  };
  return { repos, transaction };
}
