// The per-deployment credential a managed worker sends to the model gateway: the deployment id,
// the generation the worker was created for, and an HMAC over both with a key derived from
// SECRETS_KEY. Nothing to store, verified in constant time, useless for anything but that one
// deployment's metered calls, and dead once the deployment moves on: a stop, redeploy or restart
// bumps the generation, so a credential copied out of an old worker is refused.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export interface GatewayClaim {
  deploymentId: string;
  generation: number;
}

export interface GatewayCredentials {
  issue(deploymentId: string, generation: number): string;
  /** What the credential names, or undefined when it is not one of ours. */
  verify(credential: string | undefined): GatewayClaim | undefined;
}

const PREFIX = 'bgw_';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FORM = /^bgw_([0-9a-f]{32})_(0|[1-9][0-9]{0,14})_([A-Za-z0-9_-]{43})$/;

export function createGatewayCredentials(secretsKey: Buffer): GatewayCredentials {
  const key = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'berth model gateway credential v2', 32));
  const mac = (id: string, generation: number) => createHmac('sha256', key).update(`${id}|${generation}`).digest();
  // A worker sends the same credential on every model call: one HMAC per credential, not per call.
  // Only credentials that verified are kept, by their exact text.
  const verified = new Map<string, GatewayClaim>();
  return {
    issue: (id, generation) =>
      `${PREFIX}${id.replace(/-/g, '')}_${generation}_${mac(id, generation).toString('base64url')}`,
    verify(credential) {
      const known = credential && verified.get(credential);
      if (known) return known;
      const claim = check(credential);
      if (claim && credential) {
        if (verified.size >= 10_000) verified.clear();
        verified.set(credential, claim);
      }
      return claim;
    },
  };

  function check(credential: string | undefined): GatewayClaim | undefined {
    const m = credential && FORM.exec(credential);
    if (!m) return undefined;
    const hex = m[1]!;
    const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    if (!UUID.test(id)) return undefined;
    const generation = Number(m[2]);
    // Compared as text, not as decoded bytes: base64url's last character carries two unused bits,
    // so four spellings decode alike; only the one we issue is the credential.
    const given = Buffer.from(m[3]!);
    const want = Buffer.from(mac(id, generation).toString('base64url'));
    return given.length === want.length && timingSafeEqual(given, want) ? { deploymentId: id, generation } : undefined;
  }
}
