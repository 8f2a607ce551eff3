import { hash, randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Uniform random base62 string (rejection sampling keeps it unbiased). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** One call, no Hash object (every API-key request hashes its key): the same hex as createHash's. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}
