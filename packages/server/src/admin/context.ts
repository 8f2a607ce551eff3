// How an operator's verb reaches the store: opened from the server's own configuration (the same
// environment the server reads), closed when the verb is done. The CLI goes through this only.
import type { Config } from '../platform/config/env.js';
import { openStore, type Store } from '../platform/store/database.js';
import { createSecretBox, type SecretBox } from '../platform/crypto/secret-box.js';
import { resolveSecretsKey } from '../platform/crypto/secrets-key.js';
import { TtlCache } from '../platform/cache/ttl-cache.js';
import type { OperatorDeps } from './deployments.js';

export async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export function secretsOf(config: Config): SecretBox {
  return createSecretBox(resolveSecretsKey(config.secretsKey, config.dataDir));
}

/** What the operator's verbs need, from an open store (admin/deployments.ts). */
export function operatorDeps(store: Store, config: Config): OperatorDeps & Pick<Store['repos'], 'operatorViews'> {
  return {
    ...store.repos,
    transaction: store.transaction,
    now: () => new Date(),
    deployTimeoutMs: config.deployTimeoutMs,
    // This process serves no chats; the servers' own caches expire within seconds.
    cache: { keys: new TtlCache(1), targets: new TtlCache(1) },
    secrets: secretsOf(config),
  };
}
