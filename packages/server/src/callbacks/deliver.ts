// Delivers one callback. The URL is checked again now (DNS may have changed since input), the
// connection goes to the address that was checked, and redirects are not followed.
import { request, type Dispatcher } from 'undici';
import { assertPublicHost, BlockedAddressError } from '@berth/contracts/net';

export interface Delivery {
  url: string;
  id: string;
  timestamp: number;
  body: string;
  /** Omitted for an unsigned delivery (alerts: ALERT_WEBHOOK_URL has no shared secret). */
  signature?: string;
}

export type DeliveryResult = { ok: true; status: number } | { ok: false; retry: boolean; reason: string };

export async function deliverCallback(
  d: Delivery,
  dispatcher: Dispatcher,
  allowInsecure: boolean,
  timeoutMs = 15_000,
): Promise<DeliveryResult> {
  let url: URL;
  try {
    url = new URL(d.url);
  } catch {
    return { ok: false, retry: false, reason: 'the callback URL is not a URL' };
  }
  try {
    if (!allowInsecure) {
      if (url.protocol !== 'https:') return { ok: false, retry: false, reason: 'the callback URL is not https' };
      assertPublicHost(url);
    }
    const res = await request(url, {
      method: 'POST',
      dispatcher,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Berth-Webhooks/1.0',
        'webhook-id': d.id,
        'webhook-timestamp': String(d.timestamp),
        ...(d.signature ? { 'webhook-signature': d.signature } : {}),
      },
      body: d.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.dump();
    if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, status: res.statusCode };
    const redirect = res.statusCode >= 300 && res.statusCode < 400;
    return {
      ok: false,
      retry: true,
      reason: `the callback URL answered ${res.statusCode}${redirect ? ' (redirects are not followed)' : ''}`,
    };
  } catch (err) {
    const blocked =
      err instanceof BlockedAddressError || (err as { cause?: unknown }).cause instanceof BlockedAddressError;
    // A host that resolves inside may resolve outside later (or the other way); keep trying.
    return {
      ok: false,
      retry: true,
      reason: blocked ? `refused: ${(err as Error).message}` : `delivery failed: ${(err as Error).message}`,
    };
  }
}
