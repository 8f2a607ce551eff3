// Kysely's SQLite driver prepares every query anew; preparing costs more than running a point
// read. Handing it a database whose prepare() remembers statements by their SQL makes every
// repeated query (all of them: Kysely compiles parameters out of the SQL) prepare once.
import type { Database as SqliteDb, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import type { DirectRunner } from './prepared.js';

/** Past this many distinct statements (e.g. `IN` lists of many lengths) the cache starts over. */
const MAX_STATEMENTS = 500;

export function cachingStatements(db: SqliteDb): SqliteDatabase & { direct: DirectRunner } {
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
  return {
    prepare,
    close() {
      cache.clear();
      db.close();
    },
    // What Kysely's SqliteConnection.executeQuery does, without its connection mutex: only when no
    // transaction is open on the connection (see prepared.ts).
    direct(sql, parameters) {
      if (db.inTransaction) return undefined;
      const stmt = prepare(sql);
      if (stmt.reader) return { rows: stmt.all(parameters) };
      const { changes, lastInsertRowid } = stmt.run(parameters);
      return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
    },
  };
}
