import { hashApiKey } from '../crypto/api-keys.js';
import type { UserRepo } from '../store/users.js';

/** Resolves an API key to its owner: one indexed lookup by hash. */
export async function authenticate(users: UserRepo, key: string): Promise<string | undefined> {
  if (!key.startsWith('berth_') || key.length > 128) return undefined;
  return (await users.findActiveKeyOwner(hashApiKey(key)))?.userId;
}
