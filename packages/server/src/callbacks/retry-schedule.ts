// When to try a callback (and an alert, ops/alerts.ts) again: quickly at first, the waits growing
// to 4 hours, then every 6 hours: 13 attempts over about 32 hours (114,155 s) in all.
const STEPS_S = [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 21_600, 21_600, 21_600, 21_600];

/** Delay before attempt `attempt + 1`, or undefined when it is time to give up. */
export function nextCallbackDelayMs(attempt: number): number | undefined {
  const s = STEPS_S[attempt - 1];
  return s === undefined ? undefined : s * 1000;
}

export const CALLBACK_TOTAL_SPAN_S = STEPS_S.reduce((a, b) => a + b, 0);
