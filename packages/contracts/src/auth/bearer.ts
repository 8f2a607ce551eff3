// "Authorization: Bearer <token>", read one way by the control plane and the agent. The scheme is
// matched without regard to case and may be followed by more than one space (RFC 9110 §11.1,
// RFC 6750 §2.1), so a hand-written header works wherever the SDKs' does.
import { createHash, timingSafeEqual } from 'node:crypto';

/** The token an Authorization header carries as a bearer, or undefined for any other form. */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

const digest = (v: string) => createHash('sha256').update(v).digest();

/** Constant-time check of a bearer header against `token` (hashing first evens out lengths). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = bearerToken(header);
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}
