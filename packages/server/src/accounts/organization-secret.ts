// An organization's callback secret (issue 28, finding 9): the status callbacks of its deployments
// are signed with it (Standard Webhooks), whoever bought them, so every owner can verify them, any
// owner can rotate it, and it stays valid when the buying member leaves.
import { randomBytes } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import { assertCaller, type Caller, type Services } from '../services.js';
import { roleIn } from './api-keys.js';

type Deps = Pick<Services, 'accounts' | 'secrets'>;

export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The organization's secret, made on first use for organizations older than migration 0016. */
export async function organizationSecret(s: Deps, organizationId: string): Promise<string | undefined> {
  const orgs = s.accounts.organizations;
  let sealed = await orgs.webhookSecret(organizationId);
  if (sealed === undefined) return undefined;
  if (sealed === null) {
    await orgs.setWebhookSecret(organizationId, s.secrets.seal(newWebhookSecret()), true);
    sealed = await orgs.webhookSecret(organizationId);
    if (!sealed) return undefined;
  }
  return s.secrets.open(sealed);
}

const ownersOnly = () =>
  new AppError('FORBIDDEN', "Only the organization's owners may read or rotate its callback secret.");

/** GET: owners only (a member's key could otherwise forge the organization's callbacks). */
export async function readOrganizationSecret(s: Deps, caller: Caller, organizationId: string) {
  assertCaller(caller);
  if ((await roleIn(s, caller, organizationId)) !== 'owner') throw ownersOnly();
  const secret = await organizationSecret(s, organizationId.toLowerCase());
  if (!secret) throw new AppError('NOT_FOUND', 'Organization not found.');
  return { secret };
}

/** Rotate: a new secret at once; callbacks sent from now on are signed with it. */
export async function rotateOrganizationSecret(s: Deps, caller: Caller, organizationId: string) {
  assertCaller(caller);
  if ((await roleIn(s, caller, organizationId)) !== 'owner') throw ownersOnly();
  const secret = newWebhookSecret();
  await s.accounts.organizations.setWebhookSecret(organizationId.toLowerCase(), s.secrets.seal(secret));
  return { secret };
}
