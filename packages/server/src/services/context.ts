import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { DeploymentRepo } from '../store/deployments.js';
import type { UserRepo } from '../store/users.js';
import type { Database } from '../store/schema.js';
import type { PaymentsPort } from '../payments/port.js';
import type { WorkersPort } from '../workers/port.js';
import type { JobQueue } from '../jobs/queue.js';
import type { TtlCache } from '../cache/ttl-cache.js';

export interface CachedTarget {
  framework: string;
  status: string;
  workerUrl: string | null;
  gatewayToken: string | null;
  modelProvider: string;
  createdAt: string;
}

/** The chat-target cache is keyed by owner and deployment; every reader and invalidator uses this. */
export const chatTargetKey = (d: { userId: string; id: string }) => `${d.userId}:${d.id}`;

/** What the services may touch. Narrow on purpose: no config object, no request. */
export interface Services {
  db: Kysely<Database>;
  deployments: DeploymentRepo;
  users: UserRepo;
  jobs: JobQueue;
  catalog: ModelCatalog;
  secrets: SecretBox;
  payments: PaymentsPort;
  workers: WorkersPort;
  managedProvider: string;
  managedProviderApiKey: string | undefined;
  callbackAllowInsecure: boolean;
  deployTimeoutMs: number;
  now: () => Date;
  log: FastifyBaseLogger;
  /** Short-lived caches of the chat hot path: API key → user, deployment → chat target. */
  cache: { keys: TtlCache<string, string>; targets: TtlCache<string, CachedTarget> };
}

/** Who is asking. Every verb takes it and checks ownership first. */
export interface Caller {
  userId: string;
}
