// Whether a write failed on a unique constraint, on either store: PostgreSQL's SQLSTATE 23505 and
// better-sqlite3's SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY. `constraint` narrows it to one index
// (PostgreSQL names it; SQLite names the columns instead).
export function isUniqueViolation(err: unknown, what?: { index: string; column: string }): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | undefined;
  if (e?.code === '23505') return !what || e.constraint === what.index;
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    return !what || (e.message ?? '').includes(what.column);
  return false;
}

/** The unique index that keeps one platform account on one assistant. */
export const CHANNEL_ACCOUNT_INDEX = { index: 'assistant_channels_account_idx', column: 'account_id' };
