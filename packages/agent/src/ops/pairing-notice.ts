// A stranger asked a pairing-mode bot for access (DESIGN §9.3): the control plane is told at once,
// through the model gateway's base URL with the deployment's gateway credential, and sends its
// owner a signed `pairing.requested` callback. Best effort: the code works whether or not the
// notice arrives, and the owner also sees it in the dashboard's pending list.
import type { Pairing } from '../storage/access.js';
import { loadUndici } from '../http/undici.js';

interface Target {
  baseUrl: string;
  apiKey: string;
}

export async function announcePairing(
  to: Target,
  p: Pairing,
  log: { warn(obj: object, msg: string): void },
  agent: string,
): Promise<void> {
  try {
    const { request } = await loadUndici();
    const res = await request(`${to.baseUrl.replace(/\/+$/, '')}/pairings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${to.apiKey}` },
      body: JSON.stringify(p),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    await res.body.dump();
    if (res.statusCode >= 300)
      log.warn({ agent, status: res.statusCode }, 'the control plane refused a pairing notice');
  } catch (err) {
    log.warn({ agent, err: (err as Error).message }, 'a pairing notice did not reach the control plane');
  }
}

/**
 * The owner pressed Approve or Deny in a channel: the control plane decides the code as its
 * dashboard would (approve: the user joins access.telegramUserIds in a new settings version,
 * applied live). "gone": no such pending code any more; "failed": no answer to act on.
 */
export async function decidePairing(
  to: Target,
  code: string,
  decision: 'approve' | 'deny',
  log: { warn(obj: object, msg: string): void },
  agent: string,
): Promise<'done' | 'gone' | 'failed'> {
  try {
    const { request } = await loadUndici();
    const res = await request(`${to.baseUrl.replace(/\/+$/, '')}/pairings/${encodeURIComponent(code)}/${decision}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${to.apiKey}` },
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    await res.body.dump();
    if (res.statusCode < 300) return 'done';
    if (res.statusCode === 404) return 'gone';
    log.warn({ agent, status: res.statusCode }, 'the control plane refused a pairing decision');
    return 'failed';
  } catch (err) {
    log.warn({ agent, err: (err as Error).message }, 'a pairing decision did not reach the control plane');
    return 'failed';
  }
}
