// Organizations: create, list, members, invitations by link, accept, remove. Owners invite and
// remove; a member may remove itself. Foreign organizations answer NOT_FOUND.
import { randomUUID } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import { sha256Hex } from '../platform/crypto/tokens.js';
import type { Role } from '../platform/store/organizations.js';
import { assertCaller, type Caller, type Services } from '../services.js';
import { createInvitation } from './invitations.js';
import { newWebhookSecret } from './organization-secret.js';
import { isOrganizationKey, roleIn } from './api-keys.js';
import { normaliseEmail } from './create-api-key.js';

type Deps = Pick<Services, 'accounts' | 'users' | 'cache' | 'now'>;
type CreateDeps = Pick<Services, 'accounts' | 'limits' | 'secrets' | 'now'>;

const ownersOnly = () => new AppError('FORBIDDEN', "Only the organization's owners may do this.");

export async function createOrganization(s: CreateDeps, caller: Caller, input: { name: string }) {
  assertCaller(caller);
  if (isOrganizationKey(caller))
    throw new AppError('FORBIDDEN', "An organization's API key cannot create organizations; use a personal key.");
  const org = { id: randomUUID(), name: input.name, createdAt: s.now().toISOString() };
  // Organizations are free: uncapped, each would multiply the per-owner limits (issue 28, finding 3).
  const max = s.limits.maxOrganizationsPerUser || Number.POSITIVE_INFINITY;
  const webhookSecretEnc = s.secrets.seal(newWebhookSecret());
  if (!(await s.accounts.organizations.create({ ...org, webhookSecretEnc }, caller.userId, max)))
    throw new AppError(
      'QUOTA_EXCEEDED',
      `You belong to the maximum of ${max} organizations on this server; leave one to create another.`,
      { limit: max, what: 'organizations' },
    );
  return { ...org, role: 'owner' as Role };
}

export async function listOrganizations(s: Deps, caller: Caller) {
  assertCaller(caller);
  const all = await s.accounts.organizations.listFor(caller.userId);
  return isOrganizationKey(caller) ? all.filter((o) => o.id === caller.organizationId) : all;
}

export async function listMembers(s: Deps, caller: Caller, organizationId: string) {
  assertCaller(caller);
  await roleIn(s, caller, organizationId);
  return s.accounts.organizations.members(organizationId.toLowerCase());
}

export async function inviteMember(
  s: Deps,
  caller: Caller,
  organizationId: string,
  input: { email: string; role: Role },
) {
  assertCaller(caller);
  if ((await roleIn(s, caller, organizationId)) !== 'owner') throw ownersOnly();
  let email: string;
  try {
    email = normaliseEmail(input.email);
  } catch {
    throw new AppError('INVALID_INPUT', 'The email is not an email address.');
  }
  const to = { organizationId, role: input.role, invitedBy: caller.userId };
  const token = await createInvitation({ invitations: s.accounts.invitations, now: s.now }, email, to);
  return { url: `${s.accounts.publicBaseUrl}/invite/${token}` };
}

/** Joins the organization of an invitation made for the caller's email; each link works once. */
export async function acceptInvitation(s: Deps, caller: Caller, token: string) {
  assertCaller(caller);
  // Joining changes the person's own memberships: a key that acts for an organization may not.
  if (isOrganizationKey(caller))
    throw new AppError(
      'FORBIDDEN',
      "An organization's API key cannot accept invitations; sign in or use a personal key.",
    );
  const gone = () => new AppError('NOT_FOUND', 'This invitation does not exist, was used or has expired.');
  if (token.length > 128) throw gone();
  const now = s.now().toISOString();
  const inv = await s.accounts.invitations.findUsable(sha256Hex(token), now);
  if (!inv?.organizationId || !inv.role) throw gone();
  // A link is only as good as its maker: once they are no longer an owner, nobody joins through it.
  const inviter = inv.invitedBy && (await s.accounts.organizations.roleOf(inv.organizationId, inv.invitedBy));
  if (inviter !== 'owner')
    throw new AppError(
      'NOT_FOUND',
      'This invitation is no longer valid: whoever made it is no longer an owner of the organization. Ask an owner for a new link.',
    );
  const user = await s.users.findById(caller.userId);
  if (!user || user.email !== inv.email)
    throw new AppError('FORBIDDEN', 'This invitation was made for another email address.');
  if (!(await s.accounts.invitations.use(inv.id, now))) throw gone();
  const role = await s.accounts.organizations.addMember(inv.organizationId, user.id, inv.role, now);
  return { organizationId: inv.organizationId, role };
}

/**
 * Removes a member (owners; a member may remove itself). The keys the member made for the
 * organization are revoked with it: whoever leaves takes no access along.
 */
export async function removeMember(s: Deps, caller: Caller, organizationId: string, userId: string) {
  assertCaller(caller);
  const role = await roleIn(s, caller, organizationId);
  if (role !== 'owner' && userId !== caller.userId) throw ownersOnly();
  const result = await s.accounts.organizations.removeMember(organizationId, userId);
  if (result === 'absent') throw new AppError('NOT_FOUND', 'Member not found.');
  if (result === 'last-owner')
    throw new AppError(
      'CONFLICT',
      'The last owner cannot leave the organization; invite another owner first (an existing member invited as owner becomes one).',
    );
  const hashes = await s.users.revokeOrganizationKeysOf(userId, organizationId, s.now().toISOString());
  for (const h of hashes) s.cache.keys.delete(h);
}
