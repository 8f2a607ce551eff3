import { randomBytes, randomUUID } from 'node:crypto';
import { generateApiKey } from '../platform/crypto/api-keys.js';
import type { SecretBox } from '../platform/crypto/secret-box.js';
import type { UserRepo } from '../platform/store/users.js';

export interface AdminDeps {
  users: UserRepo;
  secrets: SecretBox;
  now: () => Date;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (!EMAIL.test(e) || e.length > 320) throw new Error(`"${email}" is not an email address`);
  return e;
}

/** Creates the user when needed, then a key. The key is returned once and stored only as a hash. */
export async function createApiKey(deps: AdminDeps, email: string) {
  const now = deps.now().toISOString();
  const user = await deps.users.ensure({
    id: randomUUID(),
    email: normaliseEmail(email),
    // Standard Webhooks secret for this user's deployment callbacks.
    webhookSecretEnc: deps.secrets.seal(`whsec_${randomBytes(32).toString('base64')}`),
    createdAt: now,
  });
  const { key, prefix, hash } = generateApiKey();
  const keyId = randomUUID();
  await deps.users.insertKey({ id: keyId, userId: user.id, prefix, hash, createdAt: now, revokedAt: null });
  return { user, keyId, prefix, key };
}
