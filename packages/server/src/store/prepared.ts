// Kysely builds an operation tree and compiles it to SQL on every call, which costs more than the
// point reads and the counter upsert of the request path themselves. A prepared query is built
// and compiled once with marker values; each call runs that SQL with the caller's values in the
// markers' places (Kysely turns every value into a parameter, so the SQL never depends on them).
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';

/** Marker values for the arguments of a prepared query, by position. */
export interface Markers {
  text(position: number): string;
  int(position: number): number;
}

const TEXT_MARKER = '\u0000berth-prepared-';
// Far below any count, time or id the store keeps, and distinct per position.
const INT_MARKER = Number.MIN_SAFE_INTEGER;

const markers: Markers = {
  text: (position) => `${TEXT_MARKER}${position}`,
  int: (position) => INT_MARKER + position,
};

function positionOf(value: unknown): number {
  if (typeof value === 'string' && value.startsWith(TEXT_MARKER)) return Number(value.slice(TEXT_MARKER.length));
  if (typeof value === 'number' && value >= INT_MARKER && value < INT_MARKER + 64) return value - INT_MARKER;
  return -1;
}

/** Compiles `build` once; the returned function runs it with `args` in the markers' places (by position). */
export function prepareQuery<DB, Row>(
  db: Kysely<DB>,
  build: (m: Markers) => Compilable<Row>,
): (...args: Array<string | number>) => Promise<QueryResult<Row>> {
  const compiled = build(markers).compile();
  const slots = compiled.parameters.map(positionOf);
  const arity = Math.max(-1, ...slots) + 1;
  return async (...args) => {
    if (args.length !== arity) throw new Error(`prepared query takes ${arity} arguments, got ${args.length}`);
    const parameters = compiled.parameters.map((v, i) => (slots[i]! < 0 ? v : args[slots[i]!]));
    const query: CompiledQuery<Row> = {
      query: compiled.query,
      queryId: compiled.queryId,
      sql: compiled.sql,
      parameters,
    };
    return db.executeQuery(query);
  };
}
