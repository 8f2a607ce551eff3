// Sign-in attempts are counted per email and per client address in the rate-limit counters table
// (store/rate-limits.ts), so replicas share the count. Every attempt counts, before the password
// is checked: guessing is slowed and the argon2 work an attacker can cause is bounded.
import { AppError } from '../../errors/app-error.js';
import { sha256Hex } from '../../crypto/tokens.js';
import type { Services } from '../context.js';

export const LOGIN_WINDOW_MS = 15 * 60_000;
export const LOGIN_PER_EMAIL = 10;
export const LOGIN_PER_ADDRESS = 100;
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
  // The email is hashed: the counters table holds no addresses of people.
  await count(s, `login:email:${sha256Hex(email)}`, LOGIN_PER_EMAIL);
  await count(s, `login:ip:${sha256Hex(address)}`, LOGIN_PER_ADDRESS);
}

export async function countSignupAttempt(s: Pick<Services, 'limits' | 'now'>, address: string) {
  await count(s, `signup:ip:${sha256Hex(address)}`, SIGNUP_PER_ADDRESS);
}

/** "Forgot password" requests: a few per email and per address, so nobody floods an inbox. */
export async function countResetRequest(s: Pick<Services, 'limits' | 'now'>, email: string, address: string) {
  await count(s, `reset:email:${sha256Hex(email)}`, 5);
  await count(s, `reset:ip:${sha256Hex(address)}`, 20);
}
