import { hashApiKey } from '../crypto/api-keys.js';
import type { UserRepo } from '../store/users.js';
import type { TtlCache } from '../cache/ttl-cache.js';

/** Who a key belongs to, and which key it is (rate limits count per key). */
export interface KeyOwner {
  userId: string;
  keyId: string;
}

/**
 * Resolves an API key to its owner: one indexed lookup by hash, or none when seen in the last few
 * seconds (so a revocation takes effect within the cache's time to live).
 */
export async function authenticate(
  deps: { users: UserRepo; cache: { keys: TtlCache<string, KeyOwner> } },
  key: string,
): Promise<KeyOwner | undefined> {
  if (!key.startsWith('berth_') || key.length > 128) return undefined;
  const hash = hashApiKey(key);
  const cached = deps.cache.keys.get(hash);
  if (cached) return cached;
  const owner = await deps.users.findActiveKeyOwner(hash);
  if (owner) deps.cache.keys.set(hash, owner);
  return owner;
}
