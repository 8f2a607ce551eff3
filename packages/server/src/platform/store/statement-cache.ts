// Kysely's SQLite driver prepares every query anew; preparing costs more than running a point
// read. Handing it a database whose prepare() remembers statements by their SQL makes every
// repeated query (all of them: Kysely compiles parameters out of the SQL) prepare once.
import type { Database as SqliteDb } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import type { DirectLane, Run } from './prepared.js';

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

export function cachingStatements(db: SqliteDb): SqliteDatabase & { direct: DirectLane } {
  const statements = byText((sql) => db.prepare(sql));
  const prepare = (sql: string) => statements.get(sql);
  // The direct lane keeps statements of its own. Its reads return rows as arrays (better-sqlite3's
  // raw mode) and name their columns here: making each row an object natively looks every column
  // name up in V8's string table, row after row, which cost more than the read itself for the 30
  // columns of a deployment.
  const direct = byText((sql) => {
    const stmt = db.prepare(sql);
    return stmt.reader ? { stmt: stmt.raw(true), columns: stmt.columns().map((c) => c.name) } : { stmt };
  });
  // What Kysely's SqliteConnection.executeQuery does, without its connection mutex.
  const run: Run = ({ sql, parameters }) => {
    const { stmt, columns } = direct.get(sql);
    if (columns) {
      const rows = (stmt.all(parameters) as unknown[][]).map((values) => {
        const row: Record<string, unknown> = {};
        for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i];
        return row;
      });
      return { rows };
    }
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
