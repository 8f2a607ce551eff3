// The chat proxy's memory of byok periods without a cap (billing/allowance.ts assertCredit): one
// read a second per such period instead of one per chat (decision 0027, round 5).
import { TtlCache } from '../platform/cache/ttl-cache.js';

/** How long the chat proxy trusts a period read without an allowance. */
export const UNCAPPED_TTL_MS = 1_000;

export class UncappedPeriods extends TtlCache<string, true> {
  /**
   * Caps set on this replica so far: a period read that began before one was set may still say
   * "no allowance", and must not be remembered (compared before and after the read).
   */
  capsSet = 0;
}
