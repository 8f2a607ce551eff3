// How a webhook proves where it came from (DESIGN §9.1). Meta signs the raw body with the app's
// secret (X-Hub-Signature-256: sha256=<hex HMAC-SHA256>); Telegram echoes the secret_token its bot
// was given in setWebhook (X-Telegram-Bot-Api-Secret-Token). Both compared in constant time: a
// byte-by-byte compare would tell a prober how much of its guess was right.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SecretBox } from '../platform/crypto/secret-box.js';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/** Whether `header` is the HMAC-SHA256 of exactly these bytes under the app secret. */
export function metaSignatureMatches(raw: Buffer, header: string | undefined, appSecret: string): boolean {
  const m = SIGNATURE.exec(header?.toLowerCase() ?? '');
  if (!m) return false;
  const expected = createHmac('sha256', appSecret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(m[1]!, 'hex'));
}

/** Equal strings, in time that does not depend on where they differ. */
export function secretMatches(given: string | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The secret_token a deployment's bot registers with setWebhook: a keyed hash of its id (64 hex
 * digits, within Telegram's 1–256 of [A-Za-z0-9_-]). Nothing to store, unguessable without
 * SECRETS_KEY, the same on every replica.
 */
export const telegramWebhookSecret = (secrets: Pick<SecretBox, 'hash'>, deploymentId: string) =>
  secrets.hash(`telegram webhook secret ${deploymentId}`);
