import type { FastifyBaseLogger } from 'fastify';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { DeploymentRepo } from '../store/deployments.js';
import type { UserRepo } from '../store/users.js';
import type { PaymentsPort } from '../payments/port.js';
import type { WorkersPort } from '../workers/port.js';
import type { Deployment } from '../domain/deployment.js';

/** What the services may touch. Narrow on purpose: no config object, no request. */
export interface Services {
  deployments: DeploymentRepo;
  users: UserRepo;
  catalog: ModelCatalog;
  secrets: SecretBox;
  payments: PaymentsPort;
  workers: WorkersPort;
  managedProvider: string;
  managedProviderApiKey: string | undefined;
  callbackAllowInsecure: boolean;
  now: () => Date;
  log: FastifyBaseLogger;
  /** Starts bringing a deployment to life after activate/redeploy (see services/deploy-deployment.ts). */
  startDeploy(d: Deployment): void;
}

/** Who is asking. Every verb takes it and checks ownership first. */
export interface Caller {
  userId: string;
}
