// Metering on the chat proxy. Managed and unlimited replies are booked by the model gateway, so
// here they are only refused early when the allowance cannot cover this request. A byok
// deployment calls its own provider: its reply's `usage` is booked here, against the owner's cap.
import type { Services } from '../context.js';
import { MAX_COMPLETION_TOKENS } from '../../gateway/safe-body.js';
import { assertCredit, reserve, settle, type Metered, type Reservation } from './allowance.js';
import { costNano, replyCost, reservePricing } from './pricing.js';
import type { UsageScanner } from './usage-scanner.js';

export type ChatMeterDeps = Pick<Services, 'usage' | 'billing' | 'jobs' | 'now' | 'log' | 'catalog' | 'db'>;
export type ChatMeter = Metered & { modelId: string; modelProvider: string };

function maxTokens(body: Buffer): number {
  try {
    const b = JSON.parse(body.toString('utf8'));
    const asked = [b?.max_tokens, b?.max_completion_tokens].filter((v): v is number => Number.isInteger(v) && v > 0);
    return Math.min(MAX_COMPLETION_TOKENS, ...asked);
  } catch {
    return MAX_COMPLETION_TOKENS;
  }
}

/** Refuses with CREDITS_EXHAUSTED, or holds a byok reservation to settle after the reply. */
export async function admitChat(s: ChatMeterDeps, m: ChatMeter, body: Buffer): Promise<Reservation | undefined> {
  const amount = costNano(
    reservePricing(s.catalog.provider(m.modelProvider), m.modelId),
    Math.ceil(body.length / 2),
    maxTokens(body),
  );
  if (m.apiMode !== 'byok') {
    await assertCredit(s, m, amount);
    return undefined;
  }
  return reserve(s, m, amount);
}

export async function settleChat(s: ChatMeterDeps, r: Reservation, m: ChatMeter, scanner: UsageScanner): Promise<void> {
  const usage = scanner.end();
  const entry = usage
    ? {
        source: 'proxy' as const,
        model: m.modelId,
        ...replyCost(s.catalog.provider(m.modelProvider), m.modelId, usage),
      }
    : undefined;
  await settle(s, r, entry);
}
