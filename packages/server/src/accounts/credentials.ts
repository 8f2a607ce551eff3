// Sign-up, sign-in and password change. Passwords are argon2id hashes (crypto/passwords.ts); a
// wrong email and a wrong password get the same answer in about the same time.
import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import { hashPassword, verifyNothing, verifyPassword } from '../platform/crypto/passwords.js';
import { sha256Hex } from '../platform/crypto/tokens.js';
import type { Services } from '../services.js';
import { normaliseEmail } from './create-api-key.js';
import { countLoginAttempt, countSignupAttempt } from './login-limit.js';
import { startSession } from './sessions.js';

type Deps = Pick<Services, 'accounts' | 'users' | 'secrets' | 'limits' | 'now'>;
type PasswordDeps = Deps & Pick<Services, 'cache'>;

const wrongCredentials = () => new AppError('UNAUTHORIZED', 'The email or password is wrong.');

function emailOf(raw: string): string {
  try {
    return normaliseEmail(raw);
  } catch {
    throw new AppError('INVALID_INPUT', 'The email is not an email address.');
  }
}

export const publicUser = (u: { id: string; email: string; createdAt: string }) => ({
  id: u.id,
  email: u.email,
  createdAt: u.createdAt,
});

export async function signUp(
  s: Deps,
  input: { email: string; password: string; invitation?: string },
  address: string,
) {
  await countSignupAttempt(s, address);
  const email = emailOf(input.email);
  const now = s.now().toISOString();
  const invitation = input.invitation
    ? await s.accounts.invitations.findUsable(sha256Hex(input.invitation), now)
    : undefined;
  // An invitation counts only for the email it was made for.
  const invited = invitation && invitation.email === email ? invitation : undefined;
  if (s.accounts.signup === 'closed') {
    if (!invited)
      throw new AppError('SIGNUP_CLOSED', 'Sign-up on this server needs an invitation link made for this email.');
    // Closed means the operator decides who signs up: an organization's invitation (any user can
    // make one) only adds an existing account to the organization (issue 28, finding 2).
    if (invited.organizationId !== null)
      throw new AppError(
        'SIGNUP_CLOSED',
        "Sign-up on this server needs the operator's invitation; an organization's invitation only adds an existing account.",
      );
  }
  // A sign-up invitation is single use: claimed before the account is made, given back if that fails.
  const claimed = invited && invited.organizationId === null;
  if (claimed && !(await s.accounts.invitations.use(invited.id, now)))
    throw new AppError('SIGNUP_CLOSED', 'This invitation link was used already.');
  try {
    const hash = await hashPassword(input.password);
    const user = {
      id: randomUUID(),
      email,
      webhookSecretEnc: s.secrets.seal(`whsec_${randomBytes(32).toString('base64')}`),
      createdAt: now,
    };
    let created: { id: string; email: string; createdAt: string } = user;
    if (!(await s.users.insertWithPassword(user, hash))) {
      // A user the operator made with `admin create-key` has no password; the operator's
      // invitation for that email lets its owner set one. Anyone else: the email is taken.
      const existing = await s.users.findByEmail(email);
      if (!(claimed && existing && (await s.users.setPassword(existing.id, hash, true))))
        throw new AppError('CONFLICT', 'An account with this email exists.');
      created = existing;
    }
    const session = await startSession(s, created.id);
    return { user: publicUser(created), ...session };
  } catch (err) {
    if (claimed) await s.accounts.invitations.release(invited.id);
    throw err;
  }
}

export async function signIn(s: Deps, input: { email: string; password: string }, address: string) {
  const email = input.email.trim().toLowerCase();
  await countLoginAttempt(s, email, address);
  const found = await s.users.findCredentials(email);
  const ok = found?.passwordHash
    ? await verifyPassword(found.passwordHash, input.password)
    : await verifyNothing(input.password);
  if (!found || !ok) throw wrongCredentials();
  const session = await startSession(s, found.id);
  return { user: publicUser(found), ...session };
}

/**
 * Checks the current password, sets the new one and ends every other session of the user; with
 * `revokeKeys`, every API key the user made stops working too (this replica at once, others within
 * the key cache's few seconds).
 */
export async function changePassword(
  s: PasswordDeps,
  who: { userId: string; email: string; sessionId: string },
  input: { currentPassword: string; newPassword: string; revokeKeys?: boolean },
  address: string,
) {
  await countLoginAttempt(s, who.email, address);
  const hash = await s.users.passwordHash(who.userId);
  if (!hash || !(await verifyPassword(hash, input.currentPassword)))
    throw new AppError('FORBIDDEN', 'The current password is wrong.');
  await s.users.setPassword(who.userId, await hashPassword(input.newPassword));
  await s.accounts.sessions.deleteAllOf(who.userId, who.sessionId);
  if (input.revokeKeys) {
    const hashes = await s.users.revokeAllKeysOf(who.userId, s.now().toISOString());
    for (const h of hashes) s.cache.keys.delete(h);
  }
}
