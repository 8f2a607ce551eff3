// The sign-in and sign-up limits count in fixed windows aligned to the clock (login-limit.ts). A
// test that crossed a window's end saw its count start again and waited in vain for its 429 (at
// 01:45:00 in accounts.test, at 11:45:00 in security-sign-in.test on CI).
import { LOGIN_WINDOW_MS } from '../../src/accounts/login-limit.js';

/**
 * A clock at real speed from one minute into the next sign-in window, which is also the start of a
 * request-limit minute (RATE_WINDOW_MS divides LOGIN_WINDOW_MS): a test has a whole minute of
 * requests counted in one window. Up to 16 minutes ahead of
 * the real clock, it puts out of step anything checked against the real clock (webhook signatures,
 * say): give it only to a control plane whose tests check nothing so.
 */
export function clockAtWindowStart(): () => Date {
  const t0 = Date.now();
  const offset = Math.ceil(t0 / LOGIN_WINDOW_MS) * LOGIN_WINDOW_MS + 60_000 - t0;
  return () => new Date(Date.now() + offset);
}
