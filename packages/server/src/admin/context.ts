// How an operator's verb reaches the store: opened from the server's own configuration (the same
// environment the server reads), closed when the verb is done. The CLI goes through this only.
import type { Config } from '../config/env.js';
import { openStore, type Store } from '../store/database.js';
import { createSecretBox, type SecretBox } from '../crypto/secret-box.js';
import { resolveSecretsKey } from '../crypto/secrets-key.js';

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
