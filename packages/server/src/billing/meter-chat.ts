// Metering on the chat proxy. Every model call a worker makes goes through the model gateway,
// which holds and books it (byok included: one meter, decision 0012), so the proxy books nothing:
// it only refuses early, before the worker is reached, when the allowance or the owner's cap
// cannot cover this request.
import type { Services } from '../services.js';
import { assertCredit, knownUncapped, type Metered } from './allowance.js';
import { costNano, reservePricing } from './pricing.js';

export type ChatMeterDeps = Pick<
  Services,
  'jobs' | 'callbackSequences' | 'usage' | 'billing' | 'now' | 'log' | 'catalog' | 'events'
>;
export type ChatMeter = Metered & { modelId: string; modelProvider: string };

/**
 * `maxTokens` comes from the proxy's one parse of the body (chat-body.ts). Refuses with
 * CREDITS_EXHAUSTED. Undefined, not a promise, when the period is known open and uncapped (a byok
 * owner without a cap, the default): nothing to wait for on most chats.
 */
export function admitChat(
  s: ChatMeterDeps,
  m: ChatMeter,
  request: { bytes: number; maxTokens: number },
): Promise<void> | undefined {
  if (knownUncapped(s, m)) return undefined;
  const amount = costNano(
    reservePricing(s.catalog.provider(m.modelProvider), m.modelId),
    Math.ceil(request.bytes / 2),
    request.maxTokens,
  );
  return assertCredit(s, m, amount);
}
