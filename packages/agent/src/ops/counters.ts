// What the agent counts for the operator's metrics (DESIGN §7.5): plain numbers, bumped where the
// thing happens and turned into Prometheus text only when a scrape asks (exposition.ts), so an
// idle host with 10,000 bots pays nothing per bot. One set per process: a process is what
// Prometheus scrapes (tests read differences, never absolute values). Every label is one of a
// fixed list below: never an agent's name, a chat or a user.

/** How a Telegram call failed, as far as an operator acts on it. */
export const TELEGRAM_ERROR_KINDS = ['token_rejected', 'conflict_409', 'rate_limited', 'network', 'other'] as const;
export type TelegramErrorKind = (typeof TELEGRAM_ERROR_KINDS)[number];

/**
 * What became of a due reminder or task: sent; refused (a task that did not run, its user told
 * why: allowance or cap spent, daily limit); skipped (nothing sent: reminders switched off, the
 * user no longer allowed or over the daily limit); failed (an error); missed (too late to send).
 */
export const SCHEDULED_OUTCOMES = ['sent', 'refused', 'skipped', 'failed', 'missed'] as const;
export type ScheduledOutcome = (typeof SCHEDULED_OUTCOMES)[number];

export const POOLS = ['html', 'document'] as const;
export type PoolName = (typeof POOLS)[number];
export const POOL_OUTCOMES = ['done', 'failed', 'refused'] as const;
export type PoolOutcome = (typeof POOL_OUTCOMES)[number];

const zeros = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

/** An owner's MCP tool call (DESIGN §9.2): answered, or a tool error for the model. */
export const MCP_CALL_OUTCOMES = ['ok', 'failed'] as const;

export const counters = {
  mcpCalls: zeros(MCP_CALL_OUTCOMES),
  telegramErrors: zeros(TELEGRAM_ERROR_KINDS),
  scheduledSends: zeros(SCHEDULED_OUTCOMES),
  poolJobs: { html: zeros(POOL_OUTCOMES), document: zeros(POOL_OUTCOMES) } as Record<
    PoolName,
    Record<PoolOutcome, number>
  >,
};

/**
 * The kind of a failed Bot API call: grammY's GrammyError (and the long poll's) carries Telegram's
 * `error_code`; anything without one never got an answer (HttpError, undici's errors).
 */
export function telegramErrorKind(err: unknown): TelegramErrorKind {
  const code = (err as { error_code?: unknown } | null)?.error_code;
  if (typeof code !== 'number') return 'network';
  if (code === 401 || code === 404) return 'token_rejected';
  if (code === 409) return 'conflict_409';
  if (code === 429) return 'rate_limited';
  return 'other';
}

export function countTelegramError(err: unknown) {
  counters.telegramErrors[telegramErrorKind(err)]++;
}
