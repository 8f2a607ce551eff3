import { createHash, timingSafeEqual } from 'node:crypto';

/** Constant-time check of "Authorization: Bearer <token>" (hashing first evens out lengths). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
  if (!given) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}
