// Standard Webhooks signatures: HMAC-SHA256 over "<id>.<timestamp>.<body>" with the secret's
// bytes (the base64 after "whsec_"), sent as "v1,<base64>".
import { createHmac } from 'node:crypto';

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}
