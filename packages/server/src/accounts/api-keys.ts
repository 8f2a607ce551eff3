// API key management by the user (dashboard and `berth keys`). A key belongs to a user or to an
// organization; the secret is returned once, at creation, and stored as a hash.
import { randomUUID } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import { generateApiKey } from '../platform/crypto/api-keys.js';
import type { ApiKeyRow } from '../platform/store/users.js';
import { assertCaller, type Caller, type Services } from '../services.js';

type Deps = Pick<Services, 'accounts' | 'users' | 'cache' | 'now'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const keyNotFound = () => new AppError('NOT_FOUND', 'API key not found.');
export const orgNotFound = () => new AppError('NOT_FOUND', 'Organization not found.');

/** An organization's key acts for that organization only, never for the person who made it. */
export const isOrganizationKey = (c: Caller) => c.keyId !== null && c.organizationId !== null;

export const keyView = (k: ApiKeyRow) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  organizationId: k.organizationId,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
  revokedAt: k.revokedAt,
});

/**
 * The caller's role in an organization it names, or NOT_FOUND: a stranger cannot tell a foreign
 * organization from one that does not exist. An organization's key reaches only its own.
 */
export async function roleIn(s: Pick<Services, 'accounts'>, caller: Caller, organizationId: string) {
  if (!UUID.test(organizationId)) throw orgNotFound();
  if (isOrganizationKey(caller) && caller.organizationId !== organizationId) throw orgNotFound();
  const role = await s.accounts.organizations.roleOf(organizationId, caller.userId);
  if (!role) throw orgNotFound();
  return role;
}

export async function listKeys(s: Deps, caller: Caller) {
  assertCaller(caller);
  if (isOrganizationKey(caller)) return (await s.users.listKeys(null, [caller.organizationId!])).map(keyView);
  const orgs = await s.accounts.organizations.listFor(caller.userId);
  return (
    await s.users.listKeys(
      caller.userId,
      orgs.map((o) => o.id),
    )
  ).map(keyView);
}

export async function createKey(
  s: Pick<Services, 'accounts' | 'limits' | 'users' | 'now'>,
  caller: Caller,
  input: { name: string; organizationId?: string },
) {
  assertCaller(caller);
  const organizationId = input.organizationId ?? caller.organizationId;
  if (organizationId) await roleIn(s, caller, organizationId);
  const { key, prefix, hash } = generateApiKey();
  const row = { id: randomUUID(), userId: caller.userId, organizationId, name: input.name, prefix };
  const createdAt = s.now().toISOString();
  // Keys of one person, personal or for organizations, are capped together (issue 28, finding 3).
  const max = s.limits.maxKeysPerUser || Number.POSITIVE_INFINITY;
  if (!(await s.users.insertKeyCapped({ ...row, hash, createdAt, revokedAt: null }, max)))
    throw new AppError(
      'QUOTA_EXCEEDED',
      `You hold the maximum of ${max} live API keys on this server; revoke one you no longer use to create another.`,
      { limit: max, what: 'keys' },
    );
  return { ...row, createdAt, key };
}

/** Revokes a key: one's own, or any key of an organization one owns. Revoking twice is fine. */
export async function revokeKey(s: Deps, caller: Caller, id: string) {
  assertCaller(caller);
  if (!UUID.test(id)) throw keyNotFound();
  const k = await s.users.findKey(id.toLowerCase());
  if (!k) throw keyNotFound();
  if (k.organizationId) {
    const role = await roleIn(s, caller, k.organizationId).catch(() => {
      throw keyNotFound();
    });
    if (role !== 'owner' && k.userId !== caller.userId)
      throw new AppError('FORBIDDEN', "Only the organization's owners or the key's creator may revoke it.");
  } else if (k.userId !== caller.userId || isOrganizationKey(caller)) {
    throw keyNotFound();
  }
  await s.users.revokeKeyById(k.id, s.now().toISOString());
  // This replica refuses it at once; others within the key cache's few seconds.
  s.cache.keys.delete(k.hash);
}
