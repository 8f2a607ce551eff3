// The operator's hand on accounts and placements (npx berth admin create-key, list-keys,
// revoke-key, show-user, reset-link, invite, placement). Each verb opens the store from the
// server's own configuration and closes it when done, so the user CLI never opens it (DESIGN §8).
import type { Config } from '../platform/config/env.js';
import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
  showUser,
  createResetLink,
  inviteToSignUp,
} from '../accounts/index.js';
import { choosePlacement } from '../deployments/index.js';
import { secretsOf, withStore } from './context.js';

const now = () => new Date();

/** The key is shown once: the operator passes it on. */
export const createKey = (config: Config, email: string) =>
  withStore(config, (store) => createApiKey({ users: store.repos.users, secrets: secretsOf(config), now }, email));

export const listKeys = (config: Config, email: string) =>
  withStore(config, (store) => listApiKeys({ users: store.repos.users, secrets: secretsOf(config), now }, email));

export const revokeKey = (config: Config, email: string, idOrPrefix: string) =>
  withStore(config, (store) =>
    revokeApiKey({ users: store.repos.users, secrets: secretsOf(config), now }, email, idOrPrefix),
  );

export const showAccount = (config: Config, email: string) =>
  withStore(config, (store) => showUser({ users: store.repos.users, secrets: secretsOf(config), now }, email));

export const resetLink = (config: Config, email: string) =>
  withStore(config, (store) =>
    createResetLink(
      {
        users: store.repos.users,
        resets: store.repos.resets,
        now,
        publicBaseUrl: config.publicBaseUrl,
      },
      email,
    ),
  );

export const invite = (config: Config, email: string) =>
  withStore(config, (store) =>
    inviteToSignUp({ invitations: store.repos.invitations, now, publicBaseUrl: config.publicBaseUrl }, email),
  );

export const placeDeployment = (config: Config, deploymentId: string, placement: string) =>
  withStore(config, (store) =>
    choosePlacement(
      { deployments: store.repos.deployments, placements: store.repos.placements, now },
      deploymentId,
      placement,
    ),
  );
