// Sign-in attempts are counted in the rate-limit counters table (store/rate-limits.ts), so replicas
// share the count. Every attempt counts, before the password is checked: guessing is slowed and the
// argon2 work an attacker can cause is bounded. The tight limit is per (email, client address):
// strangers guessing someone's password from their own addresses spend their own budgets, never the
// owner's, so they cannot lock the owner out (issue 28, finding 7). Per address, all emails together
// are capped too (password spraying), and per email across all addresses a wide cap bounds a guesser
// with many addresses; it takes LOGIN_PER_EMAIL_ALL / LOGIN_PER_EMAIL_AND_ADDRESS addresses to reach.
import { AppError } from '../platform/errors/app-error.js';
import { sha256Hex } from '../platform/crypto/tokens.js';
import type { Services } from '../services.js';

export const LOGIN_WINDOW_MS = 15 * 60_000;
/** Attempts per email from one client address. */
export const LOGIN_PER_EMAIL_AND_ADDRESS = 10;
/** Attempts per client address, whatever the emails. */
export const LOGIN_PER_ADDRESS = 100;
/** Attempts per email from all addresses together: many addresses' worth of guessing. */
export const LOGIN_PER_EMAIL_ALL = 1000;
/** Sign-ups per address per window: each costs an argon2 hash and a row. */
export const SIGNUP_PER_ADDRESS = 20;

async function count(s: Pick<Services, 'limits' | 'now'>, key: string, max: number) {
  const t = s.now().getTime();
  const start = Math.floor(t / LOGIN_WINDOW_MS) * LOGIN_WINDOW_MS;
  const c = await s.limits.rate.hit(key, start);
  if (c.count > max) {
    const seconds = String(Math.max(1, Math.ceil((c.windowStart + LOGIN_WINDOW_MS - t) / 1000)));
    throw new AppError(
      'RATE_LIMITED',
      `Too many attempts; retry in ${seconds} s.`,
      { retryAfterSeconds: Number(seconds) },
      { 'retry-after': seconds },
    );
  }
}

export async function countLoginAttempt(s: Pick<Services, 'limits' | 'now'>, email: string, address: string) {
  // Hashed: the counters table holds no emails or addresses of people.
  await count(s, `login:email-ip:${sha256Hex(`${email}\n${address}`)}`, LOGIN_PER_EMAIL_AND_ADDRESS);
  await count(s, `login:ip:${sha256Hex(address)}`, LOGIN_PER_ADDRESS);
  await count(s, `login:email:${sha256Hex(email)}`, LOGIN_PER_EMAIL_ALL);
}

export async function countSignupAttempt(s: Pick<Services, 'limits' | 'now'>, address: string) {
  await count(s, `signup:ip:${sha256Hex(address)}`, SIGNUP_PER_ADDRESS);
}

/** "Forgot password" requests: a few per email and per address, so nobody floods an inbox. */
export async function countResetRequest(s: Pick<Services, 'limits' | 'now'>, email: string, address: string) {
  await count(s, `reset:email:${sha256Hex(email)}`, 5);
  await count(s, `reset:ip:${sha256Hex(address)}`, 20);
}
