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
import type { DirectLane, Run } from './direct-lane.js';
import { TurnBatch } from './turn-batch.js';

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

/**
 * Compiles `build` once; the returned function runs it with `args` in the markers' places (by position).
 * `sharedCommit`: on SQLite outside a transaction, the calls of one event-loop turn run in one
 * transaction (turn-batch.ts), each still its own statement with its own answer.
 */
export function prepareQuery<DB, Row>(
  db: Kysely<DB>,
  build: (m: Markers) => Compilable<Row>,
  opts: { sharedCommit?: boolean } = {},
): (...args: Array<string | number>) => Promise<QueryResult<Row>> {
  const compiled = build(markers).compile();
  const slots = compiled.parameters.map(positionOf);
  const arity = Math.max(-1, ...slots) + 1;
  const bind = (args: Array<string | number>) => {
    if (args.length !== arity) throw new Error(`prepared query takes ${arity} arguments, got ${args.length}`);
    return compiled.parameters.map((v, i) => (slots[i]! < 0 ? v : args[slots[i]!]));
  };
  const lane = directLanes.get(db);
  const alone = async (...args: Array<string | number>) => {
    const parameters = bind(args);
    const now = lane?.statement(compiled.sql, parameters);
    if (now) return now as QueryResult<Row>;
    const query: CompiledQuery<Row> = {
      query: compiled.query,
      queryId: compiled.queryId,
      sql: compiled.sql,
      parameters,
    };
    return db.executeQuery(query);
  };
  if (!opts.sharedCommit || !lane) return alone;
  const batch = new TurnBatch<Row>(lane, compiled.sql, bind, alone);
  return (...args) => batch.run(...args);
}
