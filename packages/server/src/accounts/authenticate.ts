import { hashApiKey } from '../platform/crypto/api-keys.js';
import type { UserRepo } from '../platform/store/users.js';
import type { TtlCache } from '../platform/cache/ttl-cache.js';

/** Whom a key acts for (a user, or with organizationId an organization), and which key it is. */
export interface KeyOwner {
  userId: string;
  organizationId: string | null;
  keyId: string;
}

/** last_used_at is written at most this often per key: not a write per request on the hot path. */
export const KEY_TOUCH_MS = 60_000;

/**
 * The key's owner when the cache knows it, without a store read or a promise (the onRequest hook's
 * synchronous path); undefined otherwise, and then authenticate() decides.
 */
export function cachedKeyOwner(
  deps: { cache: { keys: TtlCache<string, KeyOwner> } },
  key: string,
): KeyOwner | undefined {
  const hash = keyHash(key);
  return hash === undefined ? undefined : deps.cache.keys.get(hash);
}

/** The key's hash, or undefined for what cannot be one of our keys (never hashed, never looked up). */
function keyHash(key: string): string | undefined {
  return key.startsWith('berth_') && key.length <= 128 ? hashApiKey(key) : undefined;
}

/**
 * Resolves an API key to its owner: one indexed lookup by hash, or none when seen in the last few
 * seconds (so a revocation takes effect within the cache's time to live).
 */
export async function authenticate(
  deps: { users: UserRepo; cache: { keys: TtlCache<string, KeyOwner> }; now: () => Date },
  key: string,
): Promise<KeyOwner | undefined> {
  const hash = keyHash(key);
  if (hash === undefined) return undefined;
  const cached = deps.cache.keys.get(hash);
  if (cached) return cached;
  const found = await deps.users.findActiveKeyOwner(hash);
  if (!found) return undefined;
  const now = deps.now();
  const stale = new Date(now.getTime() - KEY_TOUCH_MS).toISOString();
  if (!found.lastUsedAt || found.lastUsedAt < stale) await deps.users.touchKey(found.keyId, now.toISOString(), stale);
  const owner = { userId: found.userId, organizationId: found.organizationId, keyId: found.keyId };
  deps.cache.keys.set(hash, owner);
  return owner;
}
