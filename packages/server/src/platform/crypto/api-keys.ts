// API keys: "berth_" + 40 base62 chars. Only a SHA-256 hash is stored (the key has 238 bits of
// entropy, so a slow hash buys nothing) plus a short prefix that lets people tell keys apart.
import { randomToken, sha256Hex } from './tokens.js';

export const API_KEY_PREFIX_LENGTH = 12;

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = `berth_${randomToken(40)}`;
  return { key, prefix: key.slice(0, API_KEY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}
