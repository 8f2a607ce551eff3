// Kysely's SQLite driver prepares every query anew; preparing costs more than running a point
// read. Handing it a database whose prepare() remembers statements by their SQL makes every
// repeated query (all of them: Kysely compiles parameters out of the SQL) prepare once.
import type { Database as SqliteDb, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Past this many distinct statements (e.g. `IN` lists of many lengths) the cache starts over. */
const MAX_STATEMENTS = 500;

export function cachingStatements(db: SqliteDb): SqliteDatabase {
  const cache = new Map<string, Statement>();
  return {
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        if (cache.size >= MAX_STATEMENTS) cache.clear();
        stmt = db.prepare(sql);
        cache.set(sql, stmt);
      }
      return stmt;
    },
    close() {
      cache.clear();
      db.close();
    },
  };
}
