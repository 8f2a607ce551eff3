// The per-deployment credential a managed worker sends to the model gateway: the deployment id
// and an HMAC over it with a key derived from SECRETS_KEY. Nothing to store, verified in constant
// time, and useless for anything but that one deployment's metered calls.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export interface GatewayCredentials {
  issue(deploymentId: string): string;
  /** The deployment id the credential names, or undefined when it is not one of ours. */
  verify(credential: string | undefined): string | undefined;
}

const PREFIX = 'bgw_';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function createGatewayCredentials(secretsKey: Buffer): GatewayCredentials {
  const key = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'berth model gateway credential v1', 32));
  const mac = (id: string) => createHmac('sha256', key).update(id).digest();
  // A worker sends the same credential on every model call: one HMAC per credential, not per call.
  // Only credentials that verified are kept, by their exact text.
  const verified = new Map<string, string>();
  return {
    issue: (id) => `${PREFIX}${id.replace(/-/g, '')}_${mac(id).toString('base64url')}`,
    verify(credential) {
      const known = credential && verified.get(credential);
      if (known) return known;
      const id = check(credential);
      if (id && credential) {
        if (verified.size >= 10_000) verified.clear();
        verified.set(credential, id);
      }
      return id;
    },
  };

  function check(credential: string | undefined): string | undefined {
    const m = credential && /^bgw_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/.exec(credential);
    if (!m) return undefined;
    const hex = m[1]!;
    const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    if (!UUID.test(id)) return undefined;
    // Compared as text, not as decoded bytes: base64url's last character carries two unused bits,
    // so four spellings decode alike; only the one we issue is the credential.
    const given = Buffer.from(m[2]!);
    const want = Buffer.from(mac(id).toString('base64url'));
    return given.length === want.length && timingSafeEqual(given, want) ? id : undefined;
  }
}
