// Kysely's SQLite driver prepares every query anew; preparing costs more than running a point
// read. Handing it a database whose prepare() remembers statements by their SQL makes every
// repeated query (all of them: Kysely compiles parameters out of the SQL) prepare once.
import type { Database as SqliteDb } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import type { DirectLane, Run } from './direct-lane.js';

/** Past this many distinct statements (e.g. `IN` lists of many lengths) the cache starts over. */
const MAX_STATEMENTS = 500;

/** A statement cache by SQL text that starts over past MAX_STATEMENTS. */
function byText<T>(make: (sql: string) => T): { get(sql: string): T; clear(): void } {
  const cache = new Map<string, T>();
  return {
    get(sql) {
      let v = cache.get(sql);
      if (v === undefined) {
        if (cache.size >= MAX_STATEMENTS) cache.clear();
        v = make(sql);
        cache.set(sql, v);
      }
      return v;
    },
    clear: () => cache.clear(),
  };
}

/**
 * A statement's row maker: an array of values to an object keyed by the statement's column names.
 * Written as one object literal per statement (compiled once, as Ajv and fast-json-stringify compile
 * theirs), so every row of a statement has one shape from its start. Filling an empty object name by
 * name made each row walk V8's shape transitions through megamorphic keyed stores: about 4 µs of
 * each GET's CPU for a deployment's 30 columns (docs/decisions/0033-get-throughput.md). Names are
 * SQLite's column names of our own SQL, quoted by JSON.stringify; a name that repeats (a join's two
 * `id`s) keeps its last value, as assigning name by name did.
 */
export function rowMaker(columns: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  const last = new Map(columns.map((name, i) => [name, i]));
  const fields = [...last].map(([name, i]) => `${JSON.stringify(name)}: v[${i}]`);
  return new Function('v', `return { ${fields.join(', ')} };`) as (values: unknown[]) => Record<string, unknown>;
}

export function cachingStatements(db: SqliteDb): SqliteDatabase & { direct: DirectLane } {
  const statements = byText((sql) => db.prepare(sql));
  const prepare = (sql: string) => statements.get(sql);
  // The direct lane keeps statements of its own. Its reads return rows as arrays (better-sqlite3's
  // raw mode) and name their columns here: making each row an object natively looks every column
  // name up in V8's string table, row after row, which cost more than the read itself for the 30
  // columns of a deployment.
  const direct = byText((sql) => {
    const stmt = db.prepare(sql);
    return stmt.reader ? { stmt: stmt.raw(true), toRow: rowMaker(stmt.columns().map((c) => c.name)) } : { stmt };
  });
  // What Kysely's SqliteConnection.executeQuery does, without its connection mutex.
  const run: Run = ({ sql, parameters }) => {
    const { stmt, toRow } = direct.get(sql);
    if (toRow) return { rows: (stmt.all(parameters) as unknown[][]).map(toRow) };
    const { changes, lastInsertRowid } = stmt.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  };
  return {
    prepare,
    close() {
      statements.clear();
      direct.clear();
      db.close();
    },
    direct: {
      // Outside a transaction only (see prepared.ts).
      statement: (sql, parameters) => (db.inTransaction ? undefined : run({ sql, parameters })),
      transaction(work) {
        if (db.inTransaction) return undefined;
        return { value: db.transaction(() => work(run))() };
      },
    },
  };
}
