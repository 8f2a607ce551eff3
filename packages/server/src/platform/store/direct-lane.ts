// The synchronous path to SQLite that prepared queries and shared commits take (prepared.ts,
// turn-batch.ts), as the statement cache provides it (statement-cache.ts).
import type { CompiledQuery, QueryResult } from 'kysely';

/** Runs compiled SQL at once, or answers undefined when it has to wait for the connection. */
export type DirectRunner = (sql: string, parameters: readonly unknown[]) => QueryResult<unknown> | undefined;

/** Runs statements one after another in one transaction, synchronously. */
export type Run = (q: Pick<CompiledQuery, 'sql' | 'parameters'>) => QueryResult<unknown>;

export interface DirectLane {
  statement: DirectRunner;
  /** `work` inside a transaction that nothing else can join (it never yields), or undefined when one is open. */
  transaction<T>(work: (run: Run) => T): { value: T } | undefined;
}
