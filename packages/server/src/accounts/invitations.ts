// Invitation links: to sign up while SIGNUP=closed (`npx berth admin invite --email E`) or to join
// an organization. The token is in the link only; the store keeps its hash.
import { randomUUID } from 'node:crypto';
import { randomToken, sha256Hex } from '../platform/crypto/tokens.js';
import type { InvitationRepo } from '../platform/store/invitations.js';
import type { Role } from '../platform/store/organizations.js';
import { normaliseEmail } from './create-api-key.js';

export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

export interface InviteDeps {
  invitations: InvitationRepo;
  now: () => Date;
  publicBaseUrl: string;
}

export async function createInvitation(
  deps: Omit<InviteDeps, 'publicBaseUrl'>,
  email: string,
  to: { organizationId: string; role: Role; invitedBy: string } | null,
): Promise<string> {
  const token = randomToken(32);
  const now = deps.now();
  await deps.invitations.insert({
    id: randomUUID(),
    tokenHash: sha256Hex(token),
    email,
    organizationId: to?.organizationId ?? null,
    role: to?.role ?? null,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
    usedAt: null,
    invitedBy: to?.invitedBy ?? null,
  });
  return token;
}

/** The operator's sign-up link for one email: single use, valid 7 days. */
export async function inviteToSignUp(deps: InviteDeps, email: string) {
  const normalised = normaliseEmail(email);
  const token = await createInvitation(deps, normalised, null);
  return { email: normalised, url: `${deps.publicBaseUrl}/signup?invitation=${token}` };
}
