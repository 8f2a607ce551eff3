// A forgotten password: a one-time link (an hour) that sets a new one. The operator prints one with
// `npx berth admin reset-link --email E`; with SMTP_URL set, "Forgot password" mails it. The token
// travels in the link's #fragment, so it reaches neither a server log nor a Referer header.
import { randomUUID } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import { hashPassword } from '../platform/crypto/passwords.js';
import { randomToken, sha256Hex } from '../platform/crypto/tokens.js';
import type { PasswordResetRepo } from '../platform/store/password-resets.js';
import type { Services } from '../services.js';
import { normaliseEmail } from './create-api-key.js';
import { countResetRequest } from './login-limit.js';
import type { Mailer } from './mailer.js';

const VALID_MS = 60 * 60_000;

export interface ResetDeps {
  users: Services['users'];
  resets: PasswordResetRepo;
  now: () => Date;
  publicBaseUrl: string;
}

/** A new link for the account with this email (older links stop working). */
export async function createResetLink(d: ResetDeps, rawEmail: string): Promise<{ link: string; expiresAt: string }> {
  const user = await d.users.findByEmail(normaliseEmail(rawEmail));
  if (!user) throw new AppError('NOT_FOUND', `No account has the email ${rawEmail}.`);
  const token = randomToken(40);
  const now = d.now();
  const expiresAt = new Date(now.getTime() + VALID_MS).toISOString();
  await d.resets.expireOthersOf(user.id, now.toISOString());
  await d.resets.insert({
    id: randomUUID(),
    tokenHash: sha256Hex(token),
    userId: user.id,
    createdAt: now.toISOString(),
    expiresAt,
  });
  return { link: `${d.publicBaseUrl}/reset-password#token=${token}`, expiresAt };
}

/**
 * "Forgot password": mails a link when this server can send mail. The answer never says whether
 * the email has an account; `mailed` only says whether this server sends mail at all.
 */
export async function requestReset(
  s: Pick<Services, 'limits' | 'now'> & ResetDeps & { mailer: Mailer | undefined },
  rawEmail: string,
  address: string,
): Promise<{ mailed: boolean }> {
  let email: string;
  try {
    email = normaliseEmail(rawEmail);
  } catch {
    throw new AppError('INVALID_INPUT', 'The email is not an email address.');
  }
  await countResetRequest(s, email, address);
  if (!s.mailer) return { mailed: false };
  const user = await s.users.findByEmail(email);
  if (user) {
    const { link } = await createResetLink(s, email);
    await s.mailer.send({
      to: email,
      subject: 'Set a new Berth password',
      text: `Someone (hopefully you) asked to set a new password for ${email} on Berth.\n\nOpen this link within an hour to choose one:\n${link}\n\nIf it was not you, ignore this mail: your password stays as it is.\n`,
    });
  }
  return { mailed: true };
}

/** Sets the new password and signs out every session of that account. */
export async function completeReset(
  s: Pick<Services, 'users' | 'now'> & { resets: PasswordResetRepo; sessions: Services['accounts']['sessions'] },
  token: string,
  password: string,
): Promise<void> {
  const userId = await s.resets.claim(sha256Hex(token), s.now().toISOString());
  if (!userId)
    throw new AppError(
      'INVALID_INPUT',
      'This link was used already or has expired. Ask for a new one on the sign-in page.',
    );
  await s.users.setPassword(userId, await hashPassword(password));
  await s.sessions.deleteAllOf(userId);
}
