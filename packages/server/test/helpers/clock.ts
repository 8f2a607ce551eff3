// The sign-in and sign-up limits count in fixed windows aligned to the clock (login-limit.ts). A
// test that crossed a window's end saw its count start again and waited in vain for its 429 (at
// 01:45:00 in accounts.test, at 11:45:00 in security-sign-in.test on CI).
import { LOGIN_WINDOW_MS } from '../../src/accounts/login-limit.js';

/**
 * A clock at real speed from one minute into the next rate-limit window. Give it only to a
 * control plane whose tests count attempts: up to 16 minutes ahead of the real clock, it would put
 * anything checked against the real clock (webhook signatures, say) out of step.
 */
export function clockAtWindowStart(windowMs = LOGIN_WINDOW_MS): () => Date {
  const t0 = Date.now();
  const offset = Math.ceil(t0 / windowMs) * windowMs + 60_000 - t0;
  return () => new Date(Date.now() + offset);
}
