// How a channel that connects out (Discord's Gateway) is doing, as its worker sees it: the agent's
// health lists its channels beside Telegram (`channels: [{ type, state, error, details }]`). Read
// when the owner lists the channels; a worker that does not answer leaves the stored view as it is.
import type { Deployment } from '../domain/deployment.js';
import { wantsWorker } from '../domain/lifecycle.js';
import type { Services } from '../services.js';
import type { ChannelViewData } from './schemas.js';

interface Reported {
  type: string;
  state: string;
  error: string | null;
  details?: Record<string, unknown>;
}

/** The worker's own report of each channel it runs, by type; empty when it has none or is not up. */
export async function reportedChannels(s: Pick<Services, 'workers'>, d: Deployment): Promise<Map<string, Reported>> {
  if (!wantsWorker(d.desired)) return new Map();
  try {
    const res = await s.workers.assistantCall(d.workerName, 'GET', '/health');
    const list = (res.json as { channels?: unknown } | undefined)?.channels;
    // 503: the worker runs but is not ready (a channel of it failed): its report still holds.
    if ((res.status !== 200 && res.status !== 503) || !Array.isArray(list)) return new Map();
    return new Map((list as Reported[]).map((c) => [c.type, c]));
  } catch {
    return new Map();
  }
}

/**
 * The stored view with what the worker says of it: failed with its sentence (a token revoked since),
 * for any channel; connected only for one that connects out (Discord's Gateway), since a webhook
 * channel is connected when the platform reached the ingress (WhatsApp's handshake), which its
 * worker does not see.
 */
export function withReported(view: ChannelViewData, r: Reported | undefined): ChannelViewData {
  if (!r || view.status === 'disabled') return view;
  if (r.state === 'connected' && view.type === 'discord') {
    const botUsername = r.details?.botUsername ?? view.details.botUsername ?? null;
    return { ...view, status: 'connected', statusMessage: null, details: { ...view.details, botUsername } };
  }
  if (r.state === 'failed') return { ...view, status: 'failed', statusMessage: r.error ?? view.statusMessage };
  return view;
}
