// Kysely's SQLite driver prepares every query anew; preparing costs more than running a point
// read. Handing it a database whose prepare() remembers statements by their SQL makes every
// repeated query (all of them: Kysely compiles parameters out of the SQL) prepare once.
import type { Database as SqliteDb, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import type { DirectLane, Run } from './prepared.js';

/** Past this many distinct statements (e.g. `IN` lists of many lengths) the cache starts over. */
const MAX_STATEMENTS = 500;

export function cachingStatements(db: SqliteDb): SqliteDatabase & { direct: DirectLane } {
  const cache = new Map<string, Statement>();
  const prepare = (sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      if (cache.size >= MAX_STATEMENTS) cache.clear();
      stmt = db.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
  // The direct lane's reads return rows as arrays (better-sqlite3's raw mode) and name their
  // columns here: making each row an object natively looks every column name up in V8's string
  // table, row after row, which cost more than the read itself for the 30 columns of a deployment.
  const readers = new Map<string, { stmt: Statement; columns: string[] }>();
  const reader = (sql: string) => {
    let r = readers.get(sql);
    if (!r) {
      if (readers.size >= MAX_STATEMENTS) readers.clear();
      const stmt = db.prepare(sql).raw(true);
      r = { stmt, columns: stmt.columns().map((c) => c.name) };
      readers.set(sql, r);
    }
    return r;
  };
  // What Kysely's SqliteConnection.executeQuery does, without its connection mutex.
  const run: Run = ({ sql, parameters }) => {
    const stmt = prepare(sql);
    if (stmt.reader) {
      const { stmt: raw, columns } = reader(sql);
      const rows = (raw.all(parameters) as unknown[][]).map((values) => {
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
      cache.clear();
      readers.clear();
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
