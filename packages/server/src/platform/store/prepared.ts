// Kysely builds an operation tree and compiles it to SQL on every call, which costs more than the
// point reads and the counter upsert of the request path themselves. A prepared query is built
// and compiled once with marker values; each call runs that SQL with the caller's values in the
// markers' places (Kysely turns every value into a parameter, so the SQL never depends on them).
//
// On SQLite a prepared query also skips Kysely's driver when it can: better-sqlite3 runs a
// statement synchronously, so the driver's connection mutex and its promise hops only matter
// while a transaction holds the connection across awaits. Outside one, the statement runs at once
// on the same connection (nothing else can run meanwhile); inside one, it queues on the driver as
// before, so it never joins another request's transaction.
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';

/** Runs compiled SQL at once, or answers undefined when it has to wait for the connection. */
export type DirectRunner = (sql: string, parameters: readonly unknown[]) => QueryResult<unknown> | undefined;

/** Runs statements one after another in one transaction, synchronously. */
export type Run = (q: Pick<CompiledQuery, 'sql' | 'parameters'>) => QueryResult<unknown>;

export interface DirectLane {
  statement: DirectRunner;
  /** `work` inside a transaction that nothing else can join (it never yields), or undefined when one is open. */
  transaction<T>(work: (run: Run) => T): { value: T } | undefined;
}

const directLanes = new WeakMap<object, DirectLane>();

/** Lets the prepared queries of `db` (not of its transactions) take `lane` when they can. */
export function runDirectly<DB>(db: Kysely<DB>, lane: DirectLane) {
  directLanes.set(db, lane);
}

/**
 * Runs `work` synchronously in a transaction on SQLite when no other transaction is open; undefined
 * otherwise (PostgreSQL, or a transaction in flight), when the caller takes Kysely's asynchronous path.
 */
export function directTransaction<DB, T>(db: Kysely<DB>, work: (run: Run) => T): { value: T } | undefined {
  return directLanes.get(db)?.transaction(work);
}

/** Marker values for the arguments of a prepared query, by position. */
export interface Markers {
  text(position: number): string;
  int(position: number): number;
}

const TEXT_MARKER = '\u0000berth-prepared-';
// Far below any count, time or id the store keeps, and distinct per position.
const INT_MARKER = Number.MIN_SAFE_INTEGER;
/** Arguments a prepared query can take (a multi-row statement takes a few per row). */
const MAX_POSITIONS = 256;

const markers: Markers = {
  text: (position) => `${TEXT_MARKER}${position}`,
  int: (position) => INT_MARKER + position,
};

function positionOf(value: unknown): number {
  if (typeof value === 'string' && value.startsWith(TEXT_MARKER)) return Number(value.slice(TEXT_MARKER.length));
  if (typeof value === 'number' && value >= INT_MARKER && value < INT_MARKER + MAX_POSITIONS) return value - INT_MARKER;
  return -1;
}

/** A query compiled once: its SQL, and its parameters for the caller's arguments (by position). */
export interface CompiledOnce<Row> {
  compiled: CompiledQuery<Row>;
  bind(args: Array<string | number>): unknown[];
}

/** Compiles `build` once with marker values; `bind` puts the caller's values in the markers' places. */
export function compileOnce<Row>(build: (m: Markers) => Compilable<Row>): CompiledOnce<Row> {
  const compiled = build(markers).compile();
  const slots = compiled.parameters.map(positionOf);
  const arity = Math.max(-1, ...slots) + 1;
  return {
    compiled,
    bind(args) {
      if (args.length !== arity) throw new Error(`prepared query takes ${arity} arguments, got ${args.length}`);
      return compiled.parameters.map((v, i) => (slots[i]! < 0 ? v : args[slots[i]!]));
    },
  };
}

/** Compiles `build` once; the returned function runs it with `args` in the markers' places (by position). */
export function prepareQuery<DB, Row>(
  db: Kysely<DB>,
  build: (m: Markers) => Compilable<Row>,
): (...args: Array<string | number>) => Promise<QueryResult<Row>> {
  const { compiled, bind } = compileOnce(build);
  const direct = directLanes.get(db)?.statement;
  return async (...args) => {
    const parameters = bind(args);
    const now = direct?.(compiled.sql, parameters);
    if (now) return now as QueryResult<Row>;
    const query: CompiledQuery<Row> = {
      query: compiled.query,
      queryId: compiled.queryId,
      sql: compiled.sql,
      parameters,
    };
    return db.executeQuery(query);
  };
}
