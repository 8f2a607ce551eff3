// Browser sessions: an opaque random token in an HttpOnly cookie, its SHA-256 in the store. The
// CSRF token is derived from the session token (another hash of it), so it needs no column and a
// copy of the database yields neither.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { randomToken, sha256Hex } from '../platform/crypto/tokens.js';
import type { Services } from '../services.js';

export const SESSION_TTL_MS = 30 * 24 * 3600_000;
/** A session's expiry slides forward at most this often (one write a minute, not one a request). */
const TOUCH_EVERY_MS = 60_000;

export const csrfFor = (token: string) => sha256Hex(`csrf:${token}`);

export function csrfMatches(token: string, sent: string | undefined): boolean {
  if (typeof sent !== 'string') return false;
  const want = Buffer.from(csrfFor(token));
  const got = Buffer.from(sent);
  return got.length === want.length && timingSafeEqual(got, want);
}

type Deps = Pick<Services, 'accounts' | 'now'>;

export async function startSession(s: Deps, userId: string) {
  const token = randomToken(43);
  const now = s.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS).toISOString();
  await s.accounts.sessions.insert({
    id: randomUUID(),
    tokenHash: sha256Hex(token),
    userId,
    createdAt: now.toISOString(),
    lastSeenAt: now.toISOString(),
    expiresAt,
  });
  return { token, csrfToken: csrfFor(token), expiresAt };
}

/** The live session of a cookie and its user; slides the expiry when last seen a while ago. */
export async function resolveSession(s: Deps, token: string) {
  if (token.length < 20 || token.length > 128) return undefined;
  const now = s.now();
  const found = await s.accounts.sessions.findLive(sha256Hex(token), now.toISOString());
  if (!found) return undefined;
  if (now.getTime() - Date.parse(found.session.lastSeenAt) >= TOUCH_EVERY_MS) {
    await s.accounts.sessions.touch(
      found.session.id,
      now.toISOString(),
      new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
    );
  }
  return found;
}
