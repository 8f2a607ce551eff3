import type { AdminDeps } from './create-api-key.js';
import { normaliseEmail } from './create-api-key.js';

async function requireUser(deps: AdminDeps, email: string) {
  const user = await deps.users.findByEmail(normaliseEmail(email));
  if (!user)
    throw new Error(`no user with email ${email}; create one with: npx berth admin create-key --email ${email}`);
  return user;
}

export async function listApiKeys(deps: AdminDeps, email: string) {
  const user = await requireUser(deps, email);
  return { user, keys: await deps.users.listKeys(user.id) };
}

export async function revokeApiKey(deps: AdminDeps, email: string, idOrPrefix: string) {
  const user = await requireUser(deps, email);
  const n = await deps.users.revokeKey(user.id, idOrPrefix, deps.now().toISOString());
  if (n === 0)
    throw new Error(`no active key "${idOrPrefix}" for ${email}; see: npx berth admin list-keys --email ${email}`);
  return n;
}

export async function showUser(deps: AdminDeps, email: string) {
  const user = await requireUser(deps, email);
  return {
    id: user.id,
    email: user.email,
    createdAt: user.createdAt,
    webhookSecret: deps.secrets.open(user.webhookSecretEnc),
  };
}
