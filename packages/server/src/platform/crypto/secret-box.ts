// AES-256-GCM for secrets at rest (bot tokens, model keys, gateway tokens, webhook secrets).
// Stored form: "v1.<iv b64url>.<tag b64url>.<ciphertext b64url>" so the scheme can change later.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /**
   * A keyed hash (HMAC-SHA256 under a key derived from the secrets key) for finding equal secrets
   * without opening them: the same bot token on two deployments. Deterministic, unlike seal().
   */
  hash(plain: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('secret box key must be 32 bytes');
  // Its own key, so a hash never reveals anything about the encryption key.
  const hashKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'berth secret lookup hash v1', 32));
  return {
    hash(plain) {
      return createHmac('sha256', hashKey).update(plain, 'utf8').digest('hex');
    },
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) {
        throw new Error('unrecognised sealed secret');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
