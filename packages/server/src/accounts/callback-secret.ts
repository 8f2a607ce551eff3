// The secret status callbacks are signed with (Standard Webhooks, DESIGN.md §2). It is a person's:
// a user's personal deployments sign their callbacks with it; an organization's deployments sign
// with the organization's own secret (organization-secret.ts).
import { AppError } from '../platform/errors/app-error.js';
import { assertCaller, type Caller, type Services } from '../services.js';
import { isOrganizationKey } from './api-keys.js';

/**
 * The caller's own secret. An organization's key acts for the organization, never for the person
 * who made it, so it gets no person's secret (that would let it forge that person's callbacks).
 */
export async function callbackSecret(s: Pick<Services, 'users' | 'secrets'>, caller: Caller) {
  assertCaller(caller);
  if (isOrganizationKey(caller))
    throw new AppError(
      'FORBIDDEN',
      "An organization's API key has no callback secret: the secret is a person's; ask with a personal key or signed in.",
    );
  const user = await s.users.findById(caller.userId);
  if (!user) throw new AppError('UNAUTHORIZED', 'The user no longer exists.');
  return { secret: s.secrets.open(user.webhookSecretEnc) };
}
