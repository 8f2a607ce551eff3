// When to try a callback again: quickly at first, then hourly, for a little over 24 hours in all.
const STEPS_S = [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 21_600, 21_600, 21_600, 21_600];

export const CALLBACK_GIVE_UP_AFTER_ATTEMPTS = STEPS_S.length + 1;

/** Delay before attempt `attempt + 1`, or undefined when it is time to give up. */
export function nextCallbackDelayMs(attempt: number): number | undefined {
  const s = STEPS_S[attempt - 1];
  return s === undefined ? undefined : s * 1000;
}

export const CALLBACK_TOTAL_SPAN_S = STEPS_S.reduce((a, b) => a + b, 0);
